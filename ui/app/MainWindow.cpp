// Wiring only: MainWindow is the one place where pages, panels, docks, menus and the open runs are
// connected; the behaviour lives in the classes it wires (OpenRuns owns the runs and hosts and
// their lifecycle; WelcomePage, SettingsDialog, ThemeManager, RunAlerts, RunSession, ...).
#include "app/MainWindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <cmath>
#include <utility>

#include "app/AppSettings.h"
#include "app/DesktopNotifier.h"
#include "app/IconSet.h"
#include "app/RunAlerts.h"
#include "app/SettingsDialog.h"
#include "app/ShortcutsDialog.h"
#include "app/ThemeManager.h"
#include "app/WelcomePage.h"
#include "base/follow/RunStatus.h"
#include "base/run/Events.h"
#include "base/run/TrainConfig.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "checkpoints/CheckpointBrowserPage.h"
#include "common/FrameThrottle.h"
#include "common/TrainerLocator.h"
#include "dashboard/CostPanel.h"
#include "dashboard/DashboardPage.h"
#include "dashboard/SamplesPage.h"
#include "dashboard/SystemPanel.h"
#include "explorer/ExplorerPage.h"
#include "explorer/LatentSliders.h"
#include "hosts/ConnectDialog.h"
#include "hosts/SshDialogs.h"
#include "hosts/TensorBoardFolderDialog.h"
#include "hosts/TrainerSetupDialog.h"
#include "remote/HostListModel.h"
#include "remote/MultiHostRuns.h"
#include "remote/RemoteHost.h"
#include "remote/SshPrompter.h"
#include "runs/LocalRunStarter.h"
#include "runs/NewRunDialog.h"
#include "runs/OpenRuns.h"
#include "runs/RunSession.h"
#include "runs/RunTargets.h"
#include "runs/RunsSidebar.h"
#include "table/RunsTablePage.h"

namespace streetgan::ui {

namespace {
// A Slurm run's listed state once its job has ended for good (SlurmJobState's words and the
// trainer's): nothing to cancel, nothing more to follow.
bool slurmRunEnded(const QString& state) {
    static const QSet<QString> kEnded = {"finished", "failed", "cancelled", "timed-out", "stopped", "crashed", "preempted"};
    return kEnded.contains(state);
}
}  // namespace

MainWindow::MainWindow(const QString& workspace, QWidget* parent)
    : QMainWindow(parent), settings_(std::make_unique<AppSettings>()), prompter_(new SshPrompter(this)), runs_(std::make_unique<OpenRuns>(prompter_)) {
    setWindowTitle(tr("StreetGAN Studio"));
    setObjectName("MainWindow");
    // The size comes from fitToScreen() once the docks are in place (never more than the screen).
    SshDialogs::install(*prompter_, this);
    alerts_ = new RunAlerts(new DesktopNotifier(statusBar(), this), this);
    connect(alerts_, &RunAlerts::openRequested, this, [this](RunSession* s, const QString& localRunDir) {
        if (!runs_->contains(s)) s = localRunDir.isEmpty() ? nullptr : openLocalRun(localRunDir);  // closed since: open it again
        if (!s) return;
        runs_->setActive(s);
        centre_->setCurrentWidget(tabs_);
        tabs_->setCurrentWidget(dashboard_);
        setWindowState(windowState() & ~Qt::WindowMinimized);
        show();
        raise();
        activateWindow();
    });

    buildDocks();
    buildCentre();
    buildStatusBar();
    buildActions();
    wirePages();
    wireRuns();
    wireLocalStarts();
    wireMultiHostRuns();
    const bool restored = restoreGeometry(settings_->windowGeometry());
    restoreState(settings_->windowState());
    fitToScreen(!restored);
    useStartWorkspace(workspace);
    updateActions();
}

void MainWindow::buildDocks() {
    sidebar_ = new RunsSidebar;
    auto* runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName("runsDock");
    runsDock->setWidget(sidebar_);
    addDockWidget(Qt::LeftDockWidgetArea, runsDock);
    runsDock_ = runsDock;

    system_ = new SystemPanel;
    cost_ = new CostPanel;
    cost_->setPricePerHour(settings_->pricePerHour());
    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    auto* sysTitle = new QLabel(tr("<b>System</b>"));
    auto* costTitle = new QLabel(tr("<b>Cost</b>"));
    rightLayout->addWidget(sysTitle);
    rightLayout->addWidget(system_);
    rightLayout->addWidget(costTitle);
    rightLayout->addWidget(cost_);
    rightLayout->addStretch();
    auto* sysDock = new QDockWidget(tr("System and cost"), this);
    sysDock->setObjectName("systemDock");
    // In a scroll area: the dock may be narrower than the panels' widest line on small screens.
    auto* rightScroll = new QScrollArea;
    rightScroll->setObjectName("systemScroll");
    rightScroll->setWidget(right);
    rightScroll->setWidgetResizable(true);
    rightScroll->setFrameShape(QFrame::NoFrame);
    rightScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    rightScroll->setMinimumWidth(220);
    sysDock->setWidget(rightScroll);
    addDockWidget(Qt::RightDockWidgetArea, sysDock);
    systemDock_ = sysDock;
}

void MainWindow::buildCentre() {
    centre_ = new QStackedWidget;
    // Shown while no run is open: what the app does and the first start's runs folder (WelcomePage).
    welcome_ = new WelcomePage;
    connect(welcome_, &WelcomePage::workspaceChosen, this, [this](const QString& dir) {
        useWorkspace(dir);
        settings_->setWelcomeDone(true);
    });
    connect(welcome_, &WelcomePage::tinyRunRequested, this, [this] { startTinyRun(); });
    connect(welcome_, &WelcomePage::newRunRequested, this, [this] { newRunDialog(); });
    connect(welcome_, &WelcomePage::connectRequested, this, [this] { connectDialog(); });
    connect(welcome_, &WelcomePage::openRunRequested, this, [this] { openRunDialog(); });
    connect(welcome_, &WelcomePage::exploreDemoRequested, this, [this] { showExplorer(); });
    connect(welcome_, &WelcomePage::recentRunRequested, this, [this](const QString& dir) { openLocalRun(dir); });
    connect(this, &MainWindow::runOpened, welcome_, [this] { welcome_->setRecentRuns(settings_->recentRuns()); });
    tabs_ = new QTabWidget;
    tabs_->setObjectName("mainTabs");
    dashboard_ = new DashboardPage;
    samples_ = new SamplesPage;
    checkpoints_ = new CheckpointBrowserPage;
    explorer_ = new ExplorerPage;
    runsTable_ = new RunsTablePage;
    tabs_->addTab(dashboard_, tr("Dashboard"));
    tabs_->addTab(samples_, tr("Sample grids"));
    tabs_->addTab(checkpoints_, tr("Checkpoints"));
    tabs_->addTab(explorer_, tr("Explorer"));
    tabs_->addTab(runsTable_, tr("Runs table"));
    // The explorer needs no run: with nothing opened in it, it starts on the embedded demo model
    // the first time it is shown (ExplorerPage::openDemo).
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int i) {
        if (tabs_->widget(i) == explorer_ && !explorerLoaded_) showExplorer();
    });
    connect(explorer_, &ExplorerPage::sessionLoaded, this, [this] { explorerLoaded_ = true; });
    connect(explorer_, &ExplorerPage::statusMessage, this, [this](const QString& m) { showStatus(m, 8000); });
    connect(explorer_, &ExplorerPage::errorOccurred, this, [this](const QString& m) { showStatus(m, 15000); });
    // The checkpoint page's news goes to the status bar only while that page is shown: its
    // listings come as runs open and ("0 checkpoint(s) on gpubox; double-click one...") were
    // read on the Dashboard as if about it; the page keeps its own status line for when it is shown.
    connect(checkpoints_, &CheckpointBrowserPage::statusMessage, this, [this](const QString& m) {
        if (centre_->currentWidget() == tabs_ && tabs_->currentWidget() == checkpoints_) showStatus(m, 8000);
    });
    connect(checkpoints_, &CheckpointBrowserPage::openInExplorer, this, [this](const QString& ck) {
        explorerLoaded_ = true;
        explorer_->openCheckpoint(ck);
        centre_->setCurrentWidget(tabs_);
        tabs_->setCurrentWidget(explorer_);
    });
    centre_->addWidget(welcome_);
    centre_->addWidget(tabs_);
    setCentralWidget(centre_);
}

void MainWindow::buildStatusBar() {
    connection_ = new QLabel(tr("no run open"));
    connection_->setObjectName("connectionState");
    progress_ = new QProgressBar;
    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(connection_);
}

void MainWindow::wirePages() {
    connect(sidebar_, &RunsSidebar::openLocal, this, [this](const QString& p) { openLocalRun(p); });
    connect(sidebar_, &RunsSidebar::openRemote, this, [this](RemoteHost* h, const QString& p) { openRemoteRun(h, p); });
    connect(sidebar_, &RunsSidebar::setUpTrainerRequested, this, [this](RemoteHost* h) { setUpTrainer(h); });
    connect(sidebar_, &RunsSidebar::watchTensorBoardRequested, this, [this](RemoteHost* h) { watchTensorBoardOn(h); });
    connect(runs_->hosts(), &HostListModel::hostAdded, this, [this](RemoteHost* h) { wireHost(h); });
    sidebar_->setHostModel(runs_->hosts());
    connect(sidebar_, &RunsSidebar::removeHostRequested, this, [this](RemoteHost* h) {
        const QString label = h->label();
        if (runs_->hosts()->remove(h)) showStatus(tr("Removed %1 from the hosts list.").arg(label), 8000);
    });
    dashboard_->linkSidebar(sidebar_);  // the runs' check boxes choose which runs the plots overlay
    connect(dashboard_, &DashboardPage::csvExported, this,
            [this](bool ok, const QString& m) { ok ? showStatus(m, 8000) : showError(m, tr("Choose another file or free some disk space.")); });
    // A remote host's price is saved for that host; the last one picked is also the default for a
    // host never priced (AppSettings::pricePerHour).
    connect(cost_, &CostPanel::hostPriceChanged, this, [this](const QString& host, const QString& instance, double d) {
        settings_->setHostPrice(host, instance, d);
        settings_->setPricePerHour(d);
    });

    // The runs checked when the app last ran are checked (and so plotted) again once listed.
    sidebar_->restorePlotted(settings_->plottedRuns());
    connect(sidebar_, &RunsSidebar::plottedRunsChanged, this, [this](const QStringList& keys) { settings_->setPlottedRuns(keys); });
    // The runs opened from outside the runs folder stay in the sidebar's Opened group until removed.
    sidebar_->restoreOpened(settings_->openedRuns());
    connect(sidebar_, &RunsSidebar::openedRunsChanged, this, [this](const QStringList& dirs) { settings_->setOpenedRuns(dirs); });
    wireRunsTable();
}

void MainWindow::wireRunsTable() {
    runsTable_->setHostModel(runs_->hosts());
    // A host's runs cost what its Cost panel says (the price saved for it, else the last one picked).
    runsTable_->setPriceLookup([this](const QString& host) {
        const double saved = settings_->hostPricePerHour(host);
        return saved >= 0 ? saved : settings_->pricePerHour();
    });
    runsTable_->restoreColumnLayout(settings_->runsTableLayout());
    connect(runsTable_, &RunsTablePage::layoutChanged, this, [this](const QVariantMap& l) { settings_->setRunsTableLayout(l); });
    connect(runsTable_, &RunsTablePage::statusMessage, this, [this](const QString& m) { showStatus(m, 10000); });
    connect(runsTable_, &RunsTablePage::runsSelected, this, [this](const QStringList& keys) { plotTableSelection(keys); });
    // A remote run's best checkpoint comes here too, once the table downloaded it.
    connect(runsTable_, &RunsTablePage::openCheckpointRequested, this, [this](const QString& path) { openCheckpoint(path); });
}

void MainWindow::plotTableSelection(const QStringList& keys) {
    // Selecting a thousand rows must not open a thousand runs: past a dozen the plots stay as they are.
    constexpr int kMaxOverlay = 12;
    if (keys.isEmpty()) return;  // a click beside the rows keeps the plots
    if (keys.size() > kMaxOverlay) {
        showStatus(tr("%1 runs selected: select at most %2 to plot them together.").arg(keys.size()).arg(kMaxOverlay), 8000);
        return;
    }
    for (const QString& k : sidebar_->plottedRuns())
        if (!keys.contains(k)) dashboard_->setRunPlotted(k, false);
    // Not open yet: opened as the sidebar's check box does (the dashboard plots a run it adds).
    for (const QString& k : keys)
        if (!dashboard_->setRunPlotted(k, true)) sidebar_->openRun(k);
}

void MainWindow::useStartWorkspace(const QString& workspace) {
    // The runs folder: the given one (--workspace), else the remembered one, else
    // $STREETGAN_WORKSPACE, else the XDG data location. No dialog: the first start shows the
    // folder on the welcome page, which makes it when the user acts; a given or remembered one is
    // made and remembered now.
    QString ws = workspace.isEmpty() ? settings_->workspace() : workspace;
    if (ws.isEmpty()) ws = qEnvironmentVariable("STREETGAN_WORKSPACE");
    if (ws.isEmpty()) {
        ws = WelcomePage::defaultRunsFolder();
    } else {
        QDir().mkpath(ws);
        settings_->setWorkspace(ws);
    }
    sidebar_->setWorkspace(ws);
    runsTable_->setWorkspace(ws);
    welcome_->setRunsFolder(ws);
    welcome_->setFirstStart(!settings_->welcomeDone());
    welcome_->setRecentRuns(settings_->recentRuns());
}

MainWindow::~MainWindow() {
    prompter_->cancelAll();  // no SSH worker may wait for a dialog while we wait for the workers
    runs_.reset();           // the sessions, then the hosts' threads, before the pages that show them
}

HostListModel* MainWindow::hosts() const { return runs_->hosts(); }

void MainWindow::wireRuns() {
    connect(runs_.get(), &OpenRuns::opened, this, [this](RunSession* s) {
        if (!s->isRemote()) {
            settings_->addRecentRun(s->runDir());
            rebuildRecentMenu();
            sidebar_->addOpened(s->runDir());  // listed under Opened unless the workspace lists it
        }
        dashboard_->addSession(s);
        alerts_->watch(s);
        emit runOpened(s);
    });
    connect(runs_.get(), &OpenRuns::closing, this, [this](RunSession* s) {
        liveSessions_.removeAll(s);
        liveState_.remove(s);
        dashboard_->removeSession(s);
        sidebar_->forgetLive(s->runKey());
    });
    connect(runs_.get(), &OpenRuns::activeChanged, this, [this](RunSession* s) { showActive(s); });
    // The plots follow each drain (RunSession::kFrameMs); the panels' figures and the runs list's
    // step need not: at most every kLiveMs, the last drain always shown.
    liveThrottle_ = new FrameThrottle(
        kLiveMs,
        [this] {
            for (const QPointer<RunSession>& s : std::exchange(liveSessions_, {}))
                if (s) showLiveState(s);
            updatePanels();
        },
        this);
    connect(runs_.get(), &OpenRuns::appended, this, [this](RunSession* s) {
        if (!liveSessions_.contains(s)) liveSessions_ << s;
        // A new state (finished, paused, failed, ...) shows with the drain that brought it.
        const QString state = QString::fromStdString(s->series().state());
        if (liveState_.value(s) != state) {
            liveState_.insert(s, state);
            liveThrottle_->now();
        } else {
            liveThrottle_->request();
        }
    });
    connect(runs_.get(), &OpenRuns::activeConnectionChanged, connection_, &QLabel::setText);
    connect(runs_.get(), &OpenRuns::activeProgress, this, [this](qint64 done, qint64 total, const QString& format) {
        progress_->setVisible(done < total);
        progress_->setRange(0, 1000);
        progress_->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
        progress_->setFormat(format);
    });
    connect(runs_.get(), &OpenRuns::statusMessage, this, [this](const QString& m, int ms) { showStatus(m, ms); });
    connect(runs_.get(), &OpenRuns::errorOccurred, this, [this](const QString& w, const QString& t) { showError(w, t); });
}

void MainWindow::buildActions() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* runMenu = menuBar()->addMenu(tr("&Run"));
    auto* view = menuBar()->addMenu(tr("&View"));
    auto* help = menuBar()->addMenu(tr("&Help"));
    auto* tb = addToolBar(tr("Main"));
    tb->setObjectName("mainToolBar");
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);  // icons only on narrow screens (fitToScreen)
    toolBar_ = tb;
    icons_ = new IconSet(this);
    themes_ = new ThemeManager(icons_, this);
    if (!themes_->setMode(settings_->theme())) themes_->setMode("system");
    const QList<QAction*> fileTools = buildFileMenu(file);
    buildRunMenu(runMenu);
    QAction* systemToggle = buildViewMenu(view);
    buildHelpMenu(help);
    buildToolBar(fileTools, systemToggle);
}

template <typename Slot>
QAction* MainWindow::menuAction(QMenu* m, const QString& text, const QKeySequence& key, Slot slot) {
    QAction* a = m->addAction(text);
    a->setShortcut(key);
    connect(a, &QAction::triggered, this, slot);
    return a;
}

// File: runs, hosts, checkpoints, sessions, settings, quit. Returns the toolbar's (new, open, connect).
QList<QAction*> MainWindow::buildFileMenu(QMenu* file) {
    QAction* newRun = menuAction(file, tr("&New run…"), QKeySequence::New, [this] { newRunDialog(); });
    QAction* open = menuAction(file, tr("&Open run…"), QKeySequence::Open, [this] { openRunDialog(); });
    QAction* connectHostAction = menuAction(file, tr("&Connect to host…"), QKeySequence(tr("Ctrl+Shift+O")), [this] { connectDialog(); });
    // Remote trainer set-up (docs/remote-setup.md): for the one connected host, or the one chosen.
    menuAction(file, tr("Set &up streetgan-trainer on a host…"), QKeySequence(), [this] { setUpTrainerOnAHost(); });
    menuAction(file, tr("Open c&heckpoint…"), QKeySequence(tr("Ctrl+Shift+K")), [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open a checkpoint (this project's or a reference PyTorch one)"), sidebar_->workspace(),
                                                       tr("Checkpoints (*.pt *.pth);;All files (*)"));
        if (!f.isEmpty()) openCheckpoint(f);
    });
    menuAction(file, tr("Open latent &session…"), QKeySequence(), [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open a latent-walk session"), sidebar_->workspace(), tr("Sessions (*.json);;All files (*)"));
        if (!f.isEmpty()) openSession(f);
    });
    recentMenu_ = file->addMenu(tr("Recent runs"));
    rebuildRecentMenu();
    close_ = menuAction(file, tr("&Close run"), QKeySequence::Close, [this] { runs_->close(runs_->active()); });
    file->addSeparator();
    // Settings…: the platform's key (Ctrl+, on most desktops), Ctrl+, where it has none.
    QKeySequence prefsKey(QKeySequence::Preferences);
    if (prefsKey.isEmpty()) prefsKey = QKeySequence(tr("Ctrl+,"));
    QAction* prefs = menuAction(file, tr("S&ettings…"), prefsKey, [this] { openSettings(); });
    prefs->setObjectName("settingsAction");
    prefs->setMenuRole(QAction::PreferencesRole);
    // Ctrl+Q spelled out: QKeySequence::Quit is empty without a desktop platform theme.
    menuAction(file, tr("&Quit"), QKeySequence(tr("Ctrl+Q")), [this] { close(); });
    return {newRun, open, connectHostAction};
}

// Run: the active run's controls.
void MainWindow::buildRunMenu(QMenu* runMenu) {
    pause_ = menuAction(runMenu, tr("&Pause"), QKeySequence(tr("Ctrl+P")), [this] {
        if (RunSession* a = runs_->active()) a->sendCommand("pause");
    });
    resume_ = menuAction(runMenu, tr("&Resume"), QKeySequence(tr("Ctrl+R")), [this] {
        if (RunSession* a = runs_->active()) a->sendCommand("resume");
    });
    stop_ = menuAction(runMenu, tr("&Stop"), QKeySequence(tr("Ctrl+.")), [this] {
        if (!runs_->active() ||
            QMessageBox::question(this, tr("Stop the run"),
                                  tr("Stop %1? It writes a last checkpoint and ends; you can resume it later with --resume.").arg(runs_->active()->title())) !=
                QMessageBox::Yes)
            return;
        stopActiveRun();  // (the run may have been closed meanwhile)
    });
    checkpoint_ = menuAction(runMenu, tr("&Checkpoint now"), QKeySequence(tr("Ctrl+K")), [this] {
        if (RunSession* a = runs_->active()) a->sendCommand("checkpoint-now");
    });
    sample_ = menuAction(runMenu, tr("Sample &grid now"), QKeySequence(tr("Ctrl+G")), [this] {
        if (RunSession* a = runs_->active()) a->sendCommand("sample-now");
    });
    setLr_ = menuAction(runMenu, tr("Set &learning rate…"), QKeySequence(tr("Ctrl+L")), [this] {
        if (!runs_->active()) return;
        const double current = runs_->active()->series().lastValue(Metric::Lr);
        bool ok = false;
        const double lr =
            QInputDialog::getDouble(this, tr("Learning rate"), tr("New learning rate of both optimisers:"), std::isfinite(current) ? current : 2e-4,
                                    TrainConfig::kLrMin, TrainConfig::kLrMax, 8, &ok, Qt::WindowFlags(), 1e-5);
        if (RunSession* a = runs_->active(); ok && a) a->sendCommand("set-lr", lr);
    });
}

// View: pages, docks, full screen, theme. Returns the System-and-cost toggle (on the toolbar too).
QAction* MainWindow::buildViewMenu(QMenu* view) {
    QAction* refresh = menuAction(view, tr("&Refresh runs"), QKeySequence::Refresh, [this] {
        sidebar_->refresh();
        for (RemoteHost* h : runs_->hosts()->hosts()) h->refresh();
    });
    menuAction(view, tr("&Dashboard"), QKeySequence(tr("Ctrl+1")), [this] { tabs_->setCurrentIndex(0); });
    menuAction(view, tr("&Sample grids"), QKeySequence(tr("Ctrl+2")), [this] { tabs_->setCurrentIndex(1); });
    menuAction(view, tr("&Checkpoints"), QKeySequence(tr("Ctrl+3")), [this] { tabs_->setCurrentWidget(checkpoints_); });
    menuAction(view, tr("&Explorer"), QKeySequence(tr("Ctrl+4")), [this] { showExplorer(); });
    menuAction(view, tr("Runs &table"), QKeySequence(tr("Ctrl+5")), [this] {
        centre_->setCurrentWidget(tabs_);
        tabs_->setCurrentWidget(runsTable_);
    });
    view->addSeparator();
    QAction* runsToggle = runsDock_->toggleViewAction();
    runsToggle->setText(tr("R&uns panel"));
    runsToggle->setShortcut(QKeySequence(tr("Ctrl+Shift+R")));
    view->addAction(runsToggle);
    QAction* systemToggle = systemDock_->toggleViewAction();
    systemToggle->setText(tr("System and c&ost"));
    systemToggle->setShortcut(QKeySequence(tr("Ctrl+Shift+Y")));
    systemToggle->setObjectName("systemToggle");
    view->addAction(systemToggle);
    QAction* fullScreen = menuAction(view, tr("&Full screen"), QKeySequence::FullScreen, [this](bool on) { on ? showFullScreen() : showNormal(); });
    fullScreen->setCheckable(true);
    auto* themeMenu = view->addMenu(tr("&Theme"));
    themeMenu->setObjectName("themeMenu");
    themeGroup_ = new QActionGroup(this);
    themeGroup_->setExclusive(true);
    const QStringList themeNames{tr("Follow the &desktop"), tr("&Light"), tr("Dar&k")};
    for (int i = 0; i < ThemeManager::modes().size(); ++i) {
        const QString mode = ThemeManager::modes()[i];
        QAction* a = themeMenu->addAction(themeNames[i]);
        a->setCheckable(true);
        a->setData(mode);
        a->setObjectName("theme-" + mode);
        a->setChecked(mode == themes_->mode());
        themeGroup_->addAction(a);
        connect(a, &QAction::triggered, this, [this, mode] { applyTheme(mode); });
    }
    icons_->attach(refresh, "view-refresh");
    return systemToggle;
}

void MainWindow::buildHelpMenu(QMenu* help) {
    QAction* keys = menuAction(help, tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_F1), [this] { showShortcuts(); });
    keys->setShortcuts({QKeySequence(Qt::Key_F1), QKeySequence(tr("Ctrl+/"))});
    keys->setObjectName("shortcutsAction");
    icons_->attach(keys, "help-keyboard-shortcuts");
    menuAction(help, tr("&About StreetGAN Studio"), QKeySequence(), [this] {
        QMessageBox::about(
            this, tr("About StreetGAN Studio"),
            tr("<h3>StreetGAN Studio %1</h3><p>Train DCGAN models on street-level photos, here or on a remote GPU box, watch "
               "them live and explore what they learned.</p><p>Trainer: %2<br>Qt %3</p><p>GNU General Public License, "
               "version 3 or later.</p>")
                .arg(QApplication::applicationVersion().toHtmlEscaped(), TrainerLocator::trainer().toHtmlEscaped(), QString::fromLatin1(qVersion())));
    });
}

void MainWindow::buildToolBar(const QList<QAction*>& fileTools, QAction* systemToggle) {
    QToolBar* tb = toolBar_;
    QAction* newRun = fileTools.value(0);
    QAction* open = fileTools.value(1);
    QAction* connectHostAction = fileTools.value(2);
    for (QAction* a : {newRun, open, connectHostAction}) tb->addAction(a);
    tb->addSeparator();
    for (QAction* a : {pause_, resume_, stop_, checkpoint_, sample_}) tb->addAction(a);
    tb->addSeparator();
    tb->addAction(systemToggle);
    const QList<QPair<QAction*, QString>> toolIcons{{newRun, "document-new"},
                                                    {open, "document-open"},
                                                    {connectHostAction, "network-server"},
                                                    {pause_, "media-playback-pause"},
                                                    {resume_, "media-playback-start"},
                                                    {stop_, "media-playback-stop"},
                                                    {checkpoint_, "document-save"},
                                                    {sample_, "view-grid"},
                                                    {systemToggle, "utilities-system-monitor"}};
    for (const auto& [a, name] : toolIcons) {
        icons_->attach(a, name);
        // The tooltip names the key too: on narrow screens the toolbar shows icons only.
        const QString text = ShortcutsDialog::plainText(a->text()).remove(QChar(0x2026));
        a->setToolTip(a->shortcut().isEmpty() ? text : tr("%1 (%2)").arg(text, a->shortcut().toString(QKeySequence::NativeText)));
    }
}

void MainWindow::applyTheme(const QString& mode, bool remember) {
    if (!themes_->setMode(mode)) {
        showError(tr("Unknown theme “%1”.").arg(mode), tr("Choose system, light or dark."));
        return;
    }
    if (remember) settings_->setTheme(mode);
    for (QAction* a : themeGroup_->actions()) a->setChecked(a->data().toString() == mode);
}

void MainWindow::showShortcuts() {
    QList<QMenu*> menus;
    for (QAction* a : menuBar()->actions())
        if (a->menu()) menus << a->menu();
    QList<ShortcutsDialog::Entry> sliderKeys;
    for (const LatentSliders::KeyBinding& b : LatentSliders::keyBindings()) sliderKeys.append({tr("Explorer sliders"), b.description, b.keys});
    auto* d = new ShortcutsDialog(menus, {{tr("Explorer tab"), explorer_}, {tr("Sample grids tab"), samples_}}, sliderKeys, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->show();
}

void MainWindow::fitToScreen(bool initial) {
    QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (!screen) return;
    const QRect avail = screen->availableGeometry();
    // 1500 px: the right dock (~250 px), the runs list and a usable centre no longer fit side by side.
    const bool narrow = avail.width() < 1500;
    toolBar_->setToolButtonStyle(narrow ? Qt::ToolButtonIconOnly : Qt::ToolButtonTextBesideIcon);
    if (narrow && dockWidgetArea(systemDock_) != Qt::LeftDockWidgetArea && !systemDock_->isFloating()) {
        tabifyDockWidget(runsDock_, systemDock_);
        runsDock_->raise();
    } else if (!narrow && initial) {
        // Room for the panels' longest lines (the dock would otherwise start at its 220 px minimum).
        resizeDocks({systemDock_}, {340}, Qt::Horizontal);
    }
    // The window frame is not known before the first show: keep a margin for it.
    const QSize room = avail.size() - QSize(16, 48);
    QSize size = initial ? QSize(std::min(1400, int(avail.width() * 0.9)), std::min(860, int(avail.height() * 0.9))) : this->size();
    size = size.boundedTo(room).expandedTo(QSize(200, 200));
    resize(size);
    QRect g(initial ? QPoint(avail.x() + (avail.width() - size.width()) / 2, avail.y() + (avail.height() - size.height()) / 2) : pos(), size);
    if (g.right() > avail.right()) g.moveRight(avail.right());
    if (g.bottom() > avail.bottom()) g.moveBottom(avail.bottom());
    if (g.left() < avail.left()) g.moveLeft(avail.left());
    if (g.top() < avail.top()) g.moveTop(avail.top());
    move(g.topLeft());
}

void MainWindow::setUpTrainerOnAHost() {
    const QList<RemoteHost*>& hosts = runs_->hosts()->hosts();
    RemoteHost* host = nullptr;
    if (hosts.isEmpty()) {
        // No host yet: ask which one as Connect does; the host is added (and connects, with the
        // same host-key and password prompts) and the set-up follows at once.
        ConnectDialog d(settings_->recentHosts(), this);
        d.setWindowTitle(tr("Set up streetgan-trainer on a host"));
        if (d.exec() != QDialog::Accepted || d.config().host.isEmpty()) return;
        host = connectHost(d.config());
    } else if (hosts.size() == 1) {
        host = hosts.first();
    } else {
        QStringList labels;
        for (RemoteHost* h : hosts) labels << tr("%1 — %2").arg(h->label(), HostListModel::stateText(h));
        bool ok = false;
        const QString pick = QInputDialog::getItem(this, tr("Set up streetgan-trainer"), tr("Host:"), labels, 0, false, &ok);
        if (!ok) return;
        host = hosts.value(labels.indexOf(pick));
    }
    if (host) setUpTrainer(host);
}

void MainWindow::setUpTrainer(RemoteHost* host) {
    auto* d = new TrainerSetupDialog(host, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->show();
    d->survey();  // what the host is, and which set-up fits it (preselected unless one was remembered)
}

void MainWindow::showTrainerHint(RemoteHost* host, const TrainerStatus& t) {
    const QString how = tr("right-click the host in the runs list, or File → Set up streetgan-trainer on a host…");
    if (!t.mismatch.isEmpty())
        showStatus(t.mismatch + " — " + how, 30000);
    else if (host->listed() && !host->runs().isEmpty())  // another trainer's runs, followed over SFTP
        showStatus(tr("%1: watching the TensorBoard runs under %2; streetgan-trainer is %3 there (to start runs from this app: %4)")
                       .arg(host->label(), host->config().root, t.summary, how),
                   30000);
    else
        showStatus(tr("%1: streetgan-trainer %2 — watch the TensorBoard runs there, or set it up (%3)").arg(host->label(), t.summary, how), 30000);
}

void MainWindow::watchTensorBoardOn(RemoteHost* host) {
    for (auto* open : findChildren<TensorBoardFolderDialog*>())
        if (open->host() == host && open->isVisible()) {
            open->raise();
            open->activateWindow();
            return;
        }
    auto* d = new TensorBoardFolderDialog(host, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &TensorBoardFolderDialog::watchRequested, this, [this, host](const QString& folder) {
        host->setRoot(folder);  // saved for the host (configChanged), listed now
        host->refresh();
        showStatus(tr("%1: watching the TensorBoard runs under %2").arg(host->label(), folder), 15000);
    });
    connect(d, &TensorBoardFolderDialog::setUpRequested, this, [this, host] { setUpTrainer(host); });
    d->show();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    for (const QString& r : settings_->recentRuns()) recentMenu_->addAction(r, this, [this, r] { openLocalRun(r); });
    recentMenu_->setEnabled(!recentMenu_->isEmpty());
}

void MainWindow::useWorkspace(const QString& dir) {
    settings_->setWorkspace(dir);
    sidebar_->setWorkspace(dir);
    runsTable_->setWorkspace(dir);
    welcome_->setRunsFolder(dir);
}

void MainWindow::openSettings() {
    if (settingsDialog_) {
        settingsDialog_->raise();
        settingsDialog_->activateWindow();
        return;
    }
    auto* d = new SettingsDialog(*settings_, sidebar_->workspace(), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &SettingsDialog::workspaceChanged, this, [this](const QString& dir) { useWorkspace(dir); });
    connect(d, &SettingsDialog::themeChanged, this, [this](const QString& mode) { applyTheme(mode); });
    settingsDialog_ = d;
    d->open();
}

void MainWindow::openRunDialog() {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Open a run directory"), sidebar_->workspace());
    if (!d.isEmpty()) openLocalRun(d);
}

void MainWindow::showError(const QString& what, const QString& todo) {
    if (todo.isEmpty()) {
        showStatus(what, 10000);
        return;
    }
    // Not modal-blocking: the plots keep moving while the message is shown. The box is the one
    // place of this message (not the status bar as well).
    auto* box = new QMessageBox(QMessageBox::Warning, tr("StreetGAN Studio"), what, QMessageBox::Ok, this);
    box->setObjectName("errorDialog");
    box->setInformativeText(todo);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::showStatus(const QString& text, int ms) {
    // QStatusBar clips a temporary message at the first permanent widget without eliding it, so
    // a long one ends flush against the connection text ("...runs theregpubox: not connected").
    int room = statusBar()->width() - 24;
    for (QWidget* w : {static_cast<QWidget*>(progress_), static_cast<QWidget*>(connection_)})
        if (w->isVisible()) room -= w->sizeHint().width() + 8;
    const QString shown = statusBar()->fontMetrics().elidedText(text, Qt::ElideRight, std::max(room, 80));
    statusBar()->setToolTip(shown == text ? QString() : text);
    statusBar()->showMessage(shown, ms);
}

RunSession* MainWindow::openLocalRun(const QString& runDir) { return runs_->openLocal(runDir); }

RunSession* MainWindow::openRemoteRun(RemoteHost* host, const QString& runDir) { return runs_->openRemote(host, runDir); }

void MainWindow::openCheckpoint(const QString& checkpoint) {
    const QFileInfo ck(checkpoint);
    if (!ck.isFile()) {
        showError(tr("%1: no such checkpoint file.").arg(checkpoint), tr("Check the path (File → Open checkpoint…)."));
        return;
    }
    QDir dir = ck.absoluteDir();
    if (dir.dirName() == "checkpoints") dir.cdUp();
    if (QFileInfo(dir.filePath("events.jsonl")).exists() || QFileInfo(dir.filePath("run.json")).exists())
        openLocalRun(dir.absolutePath());  // its browser lists the checkpoint
    else
        checkpoints_->addReferenceCheckpoint(ck.absoluteFilePath());
    explorerLoaded_ = true;
    explorer_->openCheckpoint(ck.absoluteFilePath());
    centre_->setCurrentWidget(tabs_);
    tabs_->setCurrentWidget(explorer_);
}

void MainWindow::openSession(const QString& sessionFile) {
    explorerLoaded_ = true;
    explorer_->openSession(sessionFile);
    centre_->setCurrentWidget(tabs_);
    tabs_->setCurrentWidget(explorer_);
}

void MainWindow::showExplorer() {
    centre_->setCurrentWidget(tabs_);
    if (!explorerLoaded_) {
        explorerLoaded_ = true;
        explorer_->openDemo(true);  // the demo walk plays at once
    }
    tabs_->setCurrentWidget(explorer_);
}

void MainWindow::showActive(RunSession* s) {
    // Without a run the welcome page shows, unless the explorer (which needs no run) is in use.
    centre_->setCurrentIndex(s || tabs_->currentWidget() == explorer_ ? 1 : 0);
    samples_->setSession(s);
    RemoteHost* host = s ? runs_->hostOf(s) : nullptr;
    checkpoints_->setSession(s, host ? std::optional<SshOptions>(host->sshOptions()) : std::nullopt);
    setWindowTitle(s ? tr("%1 — StreetGAN Studio").arg(s->title()) : tr("StreetGAN Studio"));
    connection_->setText(s ? tr("%1: opening…").arg(s->isRemote() ? s->hostLabel() : tr("local")) : tr("no run open"));
    updatePanels();
    updateActions();
}

void MainWindow::showLiveState(RunSession* s) {
    // The sidebar's badge and step/total of an open run come from the events its plots draw, so
    // they reach "finished" with the last point, not with the next listing of the host.
    const RunSeries& r = s->series();
    sidebar_->showLive(s->runKey(), QString::fromStdString(r.state()), std::max<int64_t>(r.lastStep(), 0), r.totalSteps());
}

void MainWindow::updatePanels() {
    RunSession* active = runs_->active();
    const RunSeries* r = active ? &active->series() : nullptr;
    RunContext where;
    if (active) where = RunContext{active->isRemote(), active->hostLabel()};
    system_->update(r, where);
    if (where.remote) {
        const double saved = settings_->hostPricePerHour(where.hostLabel);
        cost_->setHost(where.hostLabel, settings_->hostInstance(where.hostLabel), saved >= 0 ? saved : settings_->pricePerHour());
    }
    cost_->update(r, where);
    updateActions();
}

void MainWindow::updateActions() {
    const QString state = runs_->active() ? QString::fromStdString(runs_->active()->series().state()) : QString();
    const bool live = state == QLatin1String(RunState::kRunning) || state == QLatin1String(RunState::kPaused);
    pause_->setEnabled(live && state == QLatin1String(RunState::kRunning));
    resume_->setEnabled(state == QLatin1String(RunState::kPaused));
    stop_->setEnabled(live || stoppableSlurmRun());
    checkpoint_->setEnabled(live);
    sample_->setEnabled(live);
    setLr_->setEnabled(live);
    close_->setEnabled(runs_->active() != nullptr);
}

QString MainWindow::connectionText() const { return connection_->text(); }
RunSession* MainWindow::activeSession() const { return runs_->active(); }

void MainWindow::startLocalRun(const QStringList& args) {
    progress_->setVisible(true);
    progress_->setRange(0, 0);
    progress_->setFormat(tr("starting the trainer…"));
    showStatus(tr("Starting the trainer…"));
    starter_->start(args);
}

void MainWindow::wireLocalStarts() {
    starter_ = new LocalRunStarter(this);
    connect(starter_, &LocalRunStarter::started, this, [this](const QString& runDir) {
        progress_->setVisible(false);
        sidebar_->refresh();
        openLocalRun(runDir);
    });
    connect(starter_, &LocalRunStarter::failed, this, [this](const QString& m, bool notRun) {
        progress_->setVisible(false);
        emit runStartFailed(m);
        if (notRun)
            showError(tr("Cannot run %1: %2").arg(LocalRunStarter::program(), m),
                      tr("Install streetgan-trainer next to streetgan, or set STREETGAN_TRAINER to its path."));
        else
            showError(tr("The trainer did not start: %1").arg(m), tr("Check the options of the run (and trainer.log in its folder), then try again."));
    });
}

void MainWindow::wireMultiHostRuns() {
    multiHost_ = new MultiHostRuns(this);
    connect(multiHost_, &MultiHostRuns::busyChanged, this, [this](bool busy) {
        progress_->setVisible(busy);
        progress_->setRange(0, 0);
        progress_->setFormat(tr("talking to the hosts…"));
    });
    connect(multiHost_, &MultiHostRuns::started, this, [this](RemoteHost* host, const QString& path) {
        host->refresh();  // listed once, under rank 0's host
        openRemoteRun(host, path);
    });
    connect(multiHost_, &MultiHostRuns::failed, this, [this](const QString& m) {
        emit runStartFailed(m);
        showError(tr("The run across hosts did not start: %1").arg(m),
                  tr("Every host needs streetgan-trainer and the data at the same path, and must reach rank 0's host; nothing was left running."));
    });
    connect(multiHost_, &MultiHostRuns::stopped, this, [this](const QString& path, const QString& hosts) {
        showStatus(tr("%1: every rank stopped on %2.").arg(QFileInfo(path).fileName(), hosts), 8000);
    });
    connect(multiHost_, &MultiHostRuns::stopFailed, this, [this](const QString& m) {
        showError(tr("The run across hosts did not stop: %1").arg(m), tr("Connect every host of the run, then stop it again."));
    });
}

void MainWindow::startTinyRun() {
    const QString dir = sidebar_->workspace() + "/tiny-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    startLocalRun(NewRunDialog::tinyRunArguments(dir));
}

void MainWindow::newRunDialog() {
    const RunTargets targets(sidebar_->workspace(), runs_->hosts());  // the same rows as the sidebar's hosts
    NewRunDialog d(targets.labels(), this, targets.unavailable());
    d.setSlurmTargets(targets.slurm());
    if (targets.multiHostRow() >= 0) d.setMultiHostTarget(targets.multiHostRow(), targets.multiHostChoices());
    if (d.exec() != QDialog::Accepted) return;
    if (d.runName().isEmpty()) {
        showError(tr("The run needs a name."), tr("Type a folder name for the run."));
        return;
    }
    const RunTargets::Target target = targets.at(d.targetIndex());
    if (target.multiHost) {
        QList<RemoteHost*> hosts;  // rank 0's first
        for (int i : d.multiHostFields()->chosen()) hosts << target.hosts.value(i);
        for (RemoteHost* h : hosts)
            if (!runs_->hosts()->hosts().contains(h)) return;  // removed while the dialog was open
        multiHost_->start(hosts, d.multiHostFields()->nprocPerNode(), d.trainerArguments(hosts.front()->config().root));
        return;
    }
    if (!target.host) {
        startLocalRun(d.trainerArguments(target.root));
        return;
    }
    if (!runs_->hosts()->hosts().contains(target.host)) return;  // removed while the dialog was open
    progress_->setVisible(true);
    progress_->setRange(0, 0);
    if (target.slurm)
        target.host->submitRun(d.trainerArguments(target.root), d.slurmJob());
    else
        target.host->startRun(d.trainerArguments(target.root));
}

void MainWindow::stopActiveRun() {
    RunSession* a = runs_->active();
    if (!a) return;
    RemoteHost* host = runs_->hostOf(a);
    if (multiHost_->isMultiHostRun(host, a->runDir()))
        multiHost_->stop(host, a->runDir());  // rank 0's stop, then every host's ranks waited for (or ended)
    else if (host && host->isSlurmRun(a->runDir()))
        host->cancelRun(a->runDir());  // scancel: a queued job has no trainer to tell, a running one gets SIGTERM
    else
        a->sendCommand("stop");
}

bool MainWindow::stoppableSlurmRun() const {
    // A Slurm job can be cancelled while it waits (its trainer has not started: the run's own
    // state says nothing yet) and while it runs; not once it has ended.
    RunSession* a = runs_->active();
    RemoteHost* host = a ? runs_->hostOf(a) : nullptr;
    if (!host || !host->isSlurmRun(a->runDir())) return false;
    const RunEntry* listed = host->listedRun(a->runDir());
    return !listed || !slurmRunEnded(listed->state);
}

void MainWindow::wireSlurmHost(RemoteHost* host) {
    connect(host, &RemoteHost::runSubmitted, this, [this, host](const QString& path) {
        showStatus(tr("%1: submitted to Slurm on %2; the runs list shows it queued and why, and it plots once its job runs.")
                       .arg(QFileInfo(path).fileName(), host->label()),
                   15000);
        waitingSlurmRuns_[host].insert(path);  // (the host lists it again by itself)
        openRemoteRun(host, path);             // the active run now: Stop cancels it even while it waits
    });
    connect(host, &RemoteHost::runCancelled, this, [this, host](const QString& path) {
        showStatus(tr("%1: its Slurm job is cancelled on %2.").arg(QFileInfo(path).fileName(), host->label()), 8000);
    });
    connect(host, &RemoteHost::runsListed, this, [this, host] {
        followStartedSlurmRuns(host);
        updateActions();  // Stop of a queued Slurm run follows its listing
    });
    connect(host, &QObject::destroyed, this, [this, host] { waitingSlurmRuns_.remove(host); });
}

void MainWindow::followStartedSlurmRuns(RemoteHost* host) {
    // A queued run's follow ended at once (no trainer held its lock): once the trainer has logged
    // a step (it holds the lock then) or the job has ended, the run is followed again from its
    // start, so its series plot live. A job cancelled before it ran has nothing to follow.
    QSet<QString>& waiting = waitingSlurmRuns_[host];
    for (const QString& path : QSet<QString>(waiting)) {
        const RunEntry* run = host->listedRun(path);
        if (!run || (run->step == 0 && !slurmRunEnded(run->state))) continue;
        waiting.remove(path);
        if (run->step == 0 && run->state == "cancelled") continue;
        RunSession* followed = nullptr;
        for (RunSession* s : runs_->sessions())
            if (runs_->hostOf(s) == host && s->runDir() == path) followed = s;
        if (followed) runs_->close(followed);
        openRemoteRun(host, path);
    }
}

RemoteHost* MainWindow::connectHost(const HostConfig& config) {
    bool created = false;
    RemoteHost* host = runs_->hosts()->hostFor(config, &created);  // wired by hostAdded when new
    if (!created) {
        // The same host again, maybe with another runs folder or trainer: they take effect now
        // (and are saved through configChanged), not after a restart.
        host->setRoot(config.root);
        if (!config.trainer.isEmpty() && config.trainer != host->config().trainer) host->setTrainer(config.trainer);
        host->setScheduler(config.scheduler);
    }
    settings_->addRecentHost(host->config());
    if (!created) connection_->setText(tr("%1: connecting…").arg(host->label()));
    host->refresh();
    host->probeTrainer();
    return host;
}

void MainWindow::wireHost(RemoteHost* host) {
    connection_->setText(tr("%1: connecting…").arg(host->label()));
    connect(host, &RemoteHost::connected, this, [this](const QString& l) { connection_->setText(tr("%1: connected").arg(l)); });
    connect(host, &RemoteHost::busyChanged, this, [this](bool busy) {
        progress_->setVisible(busy);
        progress_->setRange(0, 0);
        progress_->setFormat(tr("talking to the host…"));
    });
    // RemoteHost says each failure once; the sidebar marks the host (reason in its tooltip).
    connect(host, &RemoteHost::failed, this, [this, host](const QString& m) {
        connection_->setText(tr("%1: not connected").arg(host->label()));
        showError(tr("%1: %2").arg(host->label(), m),
                  tr("Check the host name, user, key and jump host (File → Connect to host), and that streetgan-trainer is installed there."));
    });
    connect(host, &RemoteHost::runStarted, this, [this, host](const QString& path) {
        host->refresh();
        openRemoteRun(host, path);
    });
    connect(host, &RemoteHost::trainerProbed, this, [this, host](const TrainerStatus& t) {
        connection_->setText(tr("%1: %2").arg(host->label(), t.summary));
        if (t.needsSetup())
            showTrainerHint(host, t);
        else if (statusBar()->currentMessage().startsWith(host->label() + ":"))
            statusBar()->clearMessage();  // the set-up hint is out of date now (it may be elided: the host is its start)
        // A host without our trainer and nothing under its runs folder: most likely another
        // trainer's box (a DL1 with the reference's TensorBoard logs). Offer both ways, once.
        if (t.state == TrainerStatus::Missing && host->listed() && host->runs().isEmpty() && !tensorBoardOffered_.contains(host->identity())) {
            tensorBoardOffered_.insert(host->identity());
            watchTensorBoardOn(host);
        }
    });
    connect(host, &RemoteHost::configChanged, this, [this](const HostConfig& c) { settings_->addRecentHost(c); });
    wireSlurmHost(host);
}

void MainWindow::connectDialog() {
    ConnectDialog d(settings_->recentHosts(), this);
    if (d.exec() != QDialog::Accepted || d.config().host.isEmpty()) return;
    connectHost(d.config());
}

void MainWindow::closeEvent(QCloseEvent* e) {
    settings_->setWindowLayout(saveGeometry(), saveState());
    QMainWindow::closeEvent(e);
}

}  // namespace streetgan::ui
