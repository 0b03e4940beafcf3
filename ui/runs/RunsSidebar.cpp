#include "runs/RunsSidebar.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QPainter>
#include <QResizeEvent>
#include <QSettings>
#include <QThread>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

#include "base/run/Events.h"
#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"
#include "runs/LocalRunLister.h"
#include "runs/RunItemDelegate.h"
#include "runs/RunPalette.h"
#include "runs/RunsFilterProxy.h"

namespace streetgan::ui {

namespace {
constexpr char kWidthKey[] = "runs/sidebarWidth";
}  // namespace

QIcon RunsSidebar::badge(const QString& state) {
    static QHash<QString, QIcon> cache;
    if (cache.contains(state)) return cache.value(state);
    const QColor c = RunItemDelegate::stateColour(state);
    QPixmap pm(12, 12);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(c);
    p.setPen(c.darker(130));
    p.drawEllipse(1, 1, 10, 10);
    p.end();
    QIcon icon(pm);
    cache.insert(state, icon);
    return icon;
}

QString RunsSidebar::shownState(const RunEntry& r, double now) {
    if (r.state == QLatin1String(RunState::kRunning) && r.updated > 0 && now - r.updated > kStalledAfterS) return QStringLiteral("stalled");
    return r.state;
}

RunsSidebar::RunsSidebar(QWidget* parent)
    : QWidget(parent), model_(new RunsTreeModel(this)), proxy_(new RunsFilterProxy(this)), thread_(new QThread(this)), lister_(new LocalRunLister) {
    setMinimumWidth(kMinimumWidth);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    filter_ = new QLineEdit;
    filter_->setObjectName("runsFilter");
    filter_->setPlaceholderText(tr("Filter by name or host"));
    filter_->setClearButtonEnabled(true);
    filter_->setToolTip(tr("Shows the runs whose name or host contains this text (case-insensitive)"));
    layout->addWidget(filter_);
    proxy_->setSourceModel(model_);
    view_ = new QTreeView;
    view_->setObjectName("runsView");
    view_->setModel(proxy_);
    view_->setHeaderHidden(true);
    view_->setItemDelegate(new RunItemDelegate(view_));
    view_->setTextElideMode(Qt::ElideRight);
    view_->setIndentation(14);
    view_->setUniformRowHeights(false);
    view_->header()->setStretchLastSection(false);
    view_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    view_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    view_->setToolTip(tr("Check a run to plot it on the dashboard; double-click to open it"));
    layout->addWidget(view_);
    // The groups (this computer, each host) open expanded, and again when the filter brings one back.
    const auto expandGroups = [this](const QModelIndex& parent, int first, int last) {
        if (parent.isValid()) return;
        for (int row = first; row <= last; ++row) {
            view_->expand(proxy_->index(row, 0));
            const QModelIndex group = proxy_->mapToSource(proxy_->index(row, 0));
            view_->setFirstColumnSpanned(row, {}, group == model_->localGroup() || model_->isOpened(group));
        }
    };
    connect(proxy_, &QAbstractItemModel::rowsInserted, this, expandGroups);
    connect(proxy_, &QAbstractItemModel::modelReset, this, [this, expandGroups] { expandGroups({}, 0, proxy_->rowCount() - 1); });
    connect(proxy_, &QAbstractItemModel::layoutChanged, this, [this, expandGroups] { expandGroups({}, 0, proxy_->rowCount() - 1); });
    model_->setGroupText(model_->localGroup(), tr("This computer"), QString());
    expandGroups({}, 0, proxy_->rowCount() - 1);
    connect(filter_, &QLineEdit::textChanged, proxy_, &RunsFilterProxy::setText);
    connect(model_, &RunsTreeModel::runChecked, this, [this](const QString& key, bool on) {
        if (plotted_.contains(key) == on) return;
        if (on)
            plotted_.insert(key);
        else
            plotted_.remove(key);
        emit plotToggled(key, on);
        emit plottedRunsChanged(plottedRuns());
    });
    wireLister();
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view_, &QTreeView::customContextMenuRequested, this, &RunsSidebar::showContextMenu);
    // Delete forgets the selected Opened runs while the tree has focus (not the filter box's Delete).
    removeOpened_ = new QAction(tr("Remove from list"), view_);
    removeOpened_->setShortcut(QKeySequence::Delete);
    removeOpened_->setShortcutContext(Qt::WidgetShortcut);
    removeOpened_->setToolTip(tr("Forget the selected opened runs (their files stay where they are)"));
    view_->addAction(removeOpened_);
    connect(removeOpened_, &QAction::triggered, this, [this] { removeOpened(selectedOpened()); });
    connect(view_, &QTreeView::activated, this, [this](const QModelIndex& proxyIndex) {
        const QModelIndex i = proxy_->mapToSource(proxyIndex);
        if (model_->isRun(i)) openRun(model_->run(i).key);
    });
    timer_ = new QTimer(this);
    timer_->setInterval(3000);
    connect(timer_, &QTimer::timeout, this, [this] { refresh(); });
    timer_->start();
}

void RunsSidebar::wireLister() {
    lister_->moveToThread(thread_);
    connect(thread_, &QThread::finished, lister_, &QObject::deleteLater);
    connect(lister_, &LocalRunLister::failed, this, [this](quint64 job, const QString&, const RunEntryList& opened) {
        listingDone();
        if (job != job_) return;
        fillOpened(opened);  // the workspace's rows stay as they were
    });
    connect(lister_, &LocalRunLister::listed, this, [this](quint64 job, const RunEntryList& runs, const RunEntryList& opened) {
        listingDone();
        if (job != job_) return;
        if (!workspace_.isEmpty()) fill(model_->localGroup(), runs);
        fillOpened(opened);                // after the workspace's: a run listed there is not shown twice
        if (workspace_.isEmpty()) return;  // (no workspace listed: no local run is known gone)
        resolveRestored(model_->localGroup());
        emit localListed(static_cast<int>(runs.size()));
    });
    thread_->start();
}

void RunsSidebar::showContextMenu(const QPoint& pos) {
    const QModelIndex i = proxy_->mapToSource(view_->indexAt(pos));
    QMenu* menu = nullptr;
    if (model_->isRun(i) && model_->isOpened(i)) {
        // The run clicked, with the other selected Opened runs when it is one of them.
        QStringList dirs = selectedOpened();
        if (!dirs.contains(model_->run(i).entry.path)) dirs = QStringList{model_->run(i).entry.path};
        menu = openedMenu(dirs);
    } else if (RemoteHost* host = model_->hostOf(i); host && !model_->isRun(i)) {
        menu = hostMenu(host);
    }
    if (!menu) return;
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(view_->viewport()->mapToGlobal(pos));
}

RunsSidebar::~RunsSidebar() {
    // Written here, not on every resize: the dock's first layouts pass through other widths
    // before the window applies preferredWidth().
    if (shownWidth_ > 0) QSettings().setValue(kWidthKey, shownWidth_);
    thread_->quit();
    thread_->wait();
}

void RunsSidebar::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // In a dock, the dock's width: what QMainWindow::resizeDocks takes back (no frame drift).
    auto* dock = qobject_cast<QDockWidget*>(parentWidget());
    if (isVisible()) shownWidth_ = dock ? dock->width() : e->size().width();
}

void RunsSidebar::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (sized_) return;
    sized_ = true;
    // Docked in a main window: give the dock the remembered width once the window is shown
    // (QMainWindow::resizeDocks before the first show is overridden by the first layout).
    auto* dock = qobject_cast<QDockWidget*>(parentWidget());
    auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr;
    if (!window) return;
    QMetaObject::invokeMethod(
        this,
        [this, dock = QPointer<QDockWidget>(dock), window = QPointer<QMainWindow>(window)] {
            if (dock && window && !dock->isFloating() && window->dockWidgetArea(dock) != Qt::NoDockWidgetArea)
                window->resizeDocks({dock}, {preferredWidth()}, Qt::Horizontal);
        },
        Qt::QueuedConnection);
}

int RunsSidebar::preferredWidth() const {
    bool ok = false;
    const int w = QSettings().value(kWidthKey).toInt(&ok);
    if (!ok || w <= 0) return kDefaultWidth;
    return std::clamp(w, kMinimumWidth, kMaximumRememberedWidth);
}

void RunsSidebar::setFilter(const QString& text) { filter_->setText(text); }
QString RunsSidebar::filter() const { return filter_->text(); }

QModelIndex RunsSidebar::runIndex(const QString& key) const { return model_->runIndex(key); }
QModelIndex RunsSidebar::hostIndex(RemoteHost* host) const { return model_->hostGroup(host); }

void RunsSidebar::showPlotted(const QString& key) { model_->setChecked(model_->runIndex(key), plotted_.contains(key)); }

void RunsSidebar::setPlotted(const QString& key, bool on) {
    const bool wasRestored = restored_.remove(key);
    const bool changed = wasRestored || plotted_.contains(key) != on;
    if (on)
        plotted_.insert(key);
    else
        plotted_.remove(key);
    showPlotted(key);
    if (changed) emit plottedRunsChanged(plottedRuns());
}

QStringList RunsSidebar::plottedRuns() const {
    QStringList keys(plotted_.begin(), plotted_.end());
    for (const QString& k : restored_)
        if (!plotted_.contains(k)) keys << k;
    keys.sort();
    return keys;
}

void RunsSidebar::restorePlotted(const QStringList& keys) {
    for (const QString& k : keys)
        if (!k.isEmpty() && !plotted_.contains(k)) restored_.insert(k);
    // Runs listed already are checked now; the others when their listing comes.
    for (int g = 1; g < model_->rowCount() && !restored_.isEmpty(); ++g)
        resolveRestored(model_->index(g, 0));  // this computer's runs resolve on its next listing
}

void RunsSidebar::resolveRestored(const QModelIndex& group) {
    if (restored_.isEmpty()) return;
    QStringList opened;
    // This computer's listing brings the Opened runs' with it: both resolve before the forgetting
    // below. A missing run has nothing to plot.
    QList<QModelIndex> groups{group};
    if (group == model_->localGroup() && model_->openedGroup().isValid()) groups << model_->openedGroup();
    for (const QModelIndex& g : groups)
        for (int i = 0; i < model_->rowCount(g); ++i) {
            const RunsTreeModel::RunRow& row = model_->run(model_->index(i, 0, g));
            if (row.missing || !restored_.remove(row.key)) continue;
            plotted_.insert(row.key);
            showPlotted(row.key);
            opened << row.key;
        }
    bool forgot = false;
    if (group == model_->localGroup()) {
        // A local key is the run's absolute folder ("HOST:FOLDER" for a remote one): one that
        // neither the workspace nor the Opened group lists is gone or lives elsewhere, and would
        // wait forever.
        for (auto it = restored_.begin(); it != restored_.end();) {
            if (QDir::isAbsolutePath(*it)) {
                it = restored_.erase(it);
                forgot = true;
            } else {
                ++it;
            }
        }
    }
    // After the loop: opening a run (the dashboard's answer) may come back here through setPlotted.
    for (const QString& key : opened) emit plotToggled(key, true);
    if (!opened.isEmpty() || forgot) emit plottedRunsChanged(plottedRuns());
}

bool RunsSidebar::openRun(const QString& key) {
    const QModelIndex i = model_->runIndex(key);
    if (!i.isValid()) return false;
    const QString path = model_->run(i).entry.path;
    RemoteHost* host = model_->hostOf(i);
    if (!host && (i.parent() == model_->localGroup() || model_->isOpened(i))) {
        if (model_->run(i).missing) return false;  // nothing to open
        emit openLocal(path);
        return true;
    }
    if (host) emit openRemote(host, path);
    return host != nullptr;
}

void RunsSidebar::setWorkspace(const QString& dir) {
    workspace_ = dir;
    model_->setGroupText(model_->localGroup(), tr("This computer — %1").arg(dir), dir);
    ++job_;  // a listing of the previous folder still in flight is stale now
    refresh();
}

void RunsSidebar::refresh() {
    // One listing at a time: a refresh asked for meanwhile (the 3 s timer on a slow disk, a click)
    // runs once when the current one is done, instead of piling up reads of every run.
    if (listing_) {
        again_ = true;
        return;
    }
    if (!workspace_.isEmpty() || !opened_.isEmpty()) {
        listing_ = true;
        const quint64 job = ++job_;
        QMetaObject::invokeMethod(lister_, [l = lister_, job, root = workspace_, dirs = opened_] { l->list(job, root, dirs); });
    }
}

void RunsSidebar::listingDone() {
    listing_ = false;
    if (again_) {
        again_ = false;
        refresh();
    }
}

void RunsSidebar::setHostModel(HostListModel* model) {
    for (RemoteHost* h : model->hosts()) addHost(h);
    connect(model, &HostListModel::rowsInserted, this, [this, model](const QModelIndex&, int first, int last) {
        for (int row = first; row <= last; ++row) addHost(model->hostAt(row));
    });
    connect(model, &HostListModel::dataChanged, this, [this, model](const QModelIndex& from, const QModelIndex& to) {
        for (int row = from.row(); row <= to.row(); ++row) showHostState(model->hostAt(row));
    });
}

void RunsSidebar::addHost(RemoteHost* host) {
    if (!host || !model_->addHost(host)) return;  // one group per host
    showHostState(host);
    connect(host, &RemoteHost::runsListed, this, [this, host](const RunEntryList& runs) {
        const QModelIndex group = model_->hostGroup(host);
        if (!group.isValid()) return;
        showHostState(host);
        fill(group, runs);
        resolveRestored(model_->hostGroup(host));
    });
    connect(host, &RemoteHost::trainerProbed, this, [this, host] { showHostState(host); });
    connect(host, &RemoteHost::stateChanged, this, [this, host] { showHostState(host); });
    connect(host, &QObject::destroyed, this, [this, host] { removeHost(host); });
}

void RunsSidebar::removeHost(RemoteHost* host) { model_->removeHost(host); }

// A host's state column (HostListModel::stateText): "not connected" with the failure in the
// tooltip, its trainer's state when that needs the user ("not installed": set it up from the
// context menu), "no runs yet", else "connected".
void RunsSidebar::showHostState(RemoteHost* host) {
    const QModelIndex group = model_->hostGroup(host);
    if (!group.isValid()) return;
    const TrainerStatus& t = host->trainerStatus();
    QString stateTip;
    if (!host->lastError().isEmpty())
        stateTip = host->lastError();
    else if (t.state == TrainerStatus::Missing && host->listed() && !host->runs().isEmpty())
        stateTip = tr("No streetgan-trainer on %1: its TensorBoard runs under %2 are followed over SFTP. Right-click the host to set up the "
                      "trainer (to start runs from this app) or to watch another folder.")
                       .arg(host->label(), host->config().root);
    else if (t.needsSetup())
        stateTip = (t.mismatch.isEmpty() ? tr("streetgan-trainer is %1 on %2.").arg(t.summary, host->label()) : t.mismatch) +
                   tr(" Right-click the host to set it up, or to watch TensorBoard runs there.");
    else if (host->listed() && host->runs().isEmpty())
        stateTip = tr("No runs under %1 on %2 yet: File → New run… starts one there.").arg(host->config().root, host->label());
    else
        stateTip = t.state == TrainerStatus::Ready ? t.summary : QString();
    model_->setGroupText(group, host->label(), tr("%1 (%2), runs under %3").arg(host->label(), host->identity(), host->config().root),
                         HostListModel::stateText(host), stateTip);
}

void RunsSidebar::showLive(const QString& key, const QString& state, qint64 step, qint64 totalSteps) {
    if (key.isEmpty() || state.isEmpty()) return;
    live_.insert(key, Live{state, step, totalSteps});
    const QModelIndex i = model_->runIndex(key);
    if (!i.isValid()) return;
    const RunsTreeModel::RunRow& row = model_->run(i);
    const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
    model_->updateRun(i, model_->isOpened(i) ? openedRowFor(row.entry, now) : rowFor(row.entry, key, row.hostText, now));
}

void RunsSidebar::forgetLive(const QString& key) { live_.remove(key); }

QMenu* RunsSidebar::hostMenu(RemoteHost* host) {
    auto* menu = new QMenu(this);
    // "Reinstall or update" only where a trainer was found; a host not checked (never reached)
    // offers the set-up, which connects first.
    const TrainerStatus& t = host->trainerStatus();
    const bool installed = t.state != TrainerStatus::Unknown && !t.needsSetup();
    QAction* setUp = menu->addAction(installed ? tr("Reinstall or update streetgan-trainer…") : tr("Set up streetgan-trainer…"));
    connect(setUp, &QAction::triggered, this, [this, host] { emit setUpTrainerRequested(host); });
    if (host->reachable())
        connect(menu->addAction(tr("Watch TensorBoard runs on this host…")), &QAction::triggered, this, [this, host] { emit watchTensorBoardRequested(host); });
    connect(menu->addAction(tr("Refresh")), &QAction::triggered, host, [host] {
        host->refresh();
        host->probeTrainer();
    });
    if (HostListModel::removable(host)) {
        QAction* remove = menu->addAction(tr("Remove from the list"));
        remove->setToolTip(tr("%1 was never reached: nothing of it is open").arg(host->label()));
        connect(remove, &QAction::triggered, this, [this, host] { emit removeHostRequested(host); });
    }
    return menu;
}

void RunsSidebar::fill(const QModelIndex& group, const RunEntryList& runs) {
    RemoteHost* host = model_->hostOf(group);
    const QString hostText = host ? host->label() : tr("this computer");
    const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
    QVector<RunsTreeModel::RunRow> rows;
    rows.reserve(runs.size());
    for (const RunEntry& r : runs) rows << rowFor(r, RunPalette::key(host ? host->label() : QString(), r.path), hostText, now);
    model_->setRuns(group, rows, [this](const QString& key) { return plotted_.contains(key); });
}

RunsTreeModel::RunRow RunsSidebar::rowFor(const RunEntry& listed, const QString& key, const QString& hostText, double now) const {
    RunsTreeModel::RunRow row;
    row.entry = listed;
    row.key = key;
    row.hostText = hostText;
    if (listed.state == QLatin1String(LocalRunLister::kMissing)) {
        row.missing = true;
        row.state = row.stateText = listed.state;
        row.tooltip =
            QStringList{listed.name, listed.error, tr("Right-click it (or select it and press Delete) to remove it from this list; no file is touched.")}.join(
                '\n');
        return row;
    }
    RunEntry r = listed;
    // The open run's own events are newer than any listing: they give its state and steps.
    if (auto it = live_.constFind(key); it != live_.constEnd()) {
        r.state = it->state;
        r.step = it->step;
        if (it->totalSteps > 0) r.totalSteps = it->totalSteps;
        r.updated = 0;  // followed live: "stalled" is the listing's guess, not needed here
    }
    row.state = shownState(r, now);
    row.detail = r.totalSteps > 0 ? QString("%1/%2").arg(r.step).arg(r.totalSteps) : r.step > 0 ? tr("step %1").arg(r.step) : QString();
    // A queued Slurm run has no step yet: why it waits is its detail ("Priority", "Resources").
    if (row.detail.isEmpty() && !r.reason.isEmpty()) row.detail = r.reason;
    row.stateText = row.detail.isEmpty() ? row.state : row.state + " " + row.detail;
    QStringList tip{r.name, tr("on %1: %2").arg(hostText, r.path)};
    tip << row.stateText;
    if (!r.slurmJob.isEmpty()) tip << (r.reason.isEmpty() ? tr("Slurm job %1").arg(r.slurmJob) : tr("Slurm job %1: %2").arg(r.slurmJob, r.reason));
    if (row.state != r.state) tip << tr("(%1, but no event for %2 min: is the trainer hung?)").arg(r.state).arg(static_cast<int>((now - r.updated) / 60));
    if (r.updated > 0) tip << tr("last event %1").arg(QDateTime::fromSecsSinceEpoch(static_cast<qint64>(r.updated)).toString());
    if (!r.error.isEmpty()) tip << r.error;
    tip << tr("Check to plot it on the dashboard; double-click to open it.");
    row.tooltip = tip.join('\n');
    return row;
}

void RunsSidebar::addOpened(const QString& runDir) {
    const QString dir = RunPalette::key({}, runDir);
    if (runDir.isEmpty() || opened_.contains(dir)) return;
    // A run directly in the workspace is one the next listing shows there (a run just started by
    // this app is opened before that listing).
    const bool inWorkspace = !workspace_.isEmpty() && QFileInfo(dir).absolutePath() == RunPalette::key({}, workspace_);
    if (inWorkspace || workspaceKeys().contains(dir)) return;
    opened_ << dir;
    emit openedRunsChanged(opened_);
    refresh();
}

void RunsSidebar::restoreOpened(const QStringList& runDirs) {
    for (const QString& d : runDirs) {
        const QString dir = d.trimmed().isEmpty() ? QString() : RunPalette::key({}, d.trimmed());
        if (!dir.isEmpty() && !opened_.contains(dir)) opened_ << dir;
    }
    refresh();
}

void RunsSidebar::removeOpened(const QStringList& runDirs) {
    bool changed = false;
    for (const QString& d : runDirs) changed = opened_.removeAll(RunPalette::key({}, d)) > 0 || changed;
    if (!changed) return;
    fillOpened(openedListed_);  // at once, not with the next listing
    emit openedRunsChanged(opened_);
}

QMenu* RunsSidebar::openedMenu(const QStringList& runDirs) {
    auto* menu = new QMenu(this);
    QAction* remove = menu->addAction(runDirs.size() > 1 ? tr("Remove %1 runs from list").arg(runDirs.size()) : tr("Remove from list"));
    remove->setShortcut(removeOpened_->shortcut());  // (shown; Delete in the tree does the same)
    remove->setShortcutContext(Qt::WidgetShortcut);
    remove->setToolTip(tr("Forget it here; its files stay where they are"));
    connect(remove, &QAction::triggered, this, [this, runDirs] { removeOpened(runDirs); });
    return menu;
}

QSet<QString> RunsSidebar::workspaceKeys() const {
    QSet<QString> keys;
    const QModelIndex local = model_->localGroup();
    for (int i = 0; i < model_->rowCount(local); ++i) keys.insert(model_->run(model_->index(i, 0, local)).key);
    return keys;
}

QStringList RunsSidebar::selectedOpened() const {
    QModelIndexList picked = view_->selectionModel()->selectedRows(0);
    if (picked.isEmpty() && view_->currentIndex().isValid()) picked << view_->currentIndex();
    QStringList dirs;
    for (const QModelIndex& p : picked) {
        const QModelIndex i = proxy_->mapToSource(p);
        if (model_->isRun(i) && model_->isOpened(i) && !dirs.contains(model_->run(i).entry.path)) dirs << model_->run(i).entry.path;
    }
    return dirs;
}

void RunsSidebar::fillOpened(const RunEntryList& opened) {
    openedListed_ = opened;
    const QSet<QString> listed = workspaceKeys();
    const double now = static_cast<double>(QDateTime::currentSecsSinceEpoch());
    QVector<RunsTreeModel::RunRow> rows;
    for (const RunEntry& r : opened) {
        const QString key = RunPalette::key({}, r.path);
        // (A listing in flight when a run was removed still has it.)
        if (opened_.contains(key) && !listed.contains(key)) rows << openedRowFor(r, now);
    }
    model_->setOpenedRuns(tr("Opened"),
                          tr("Runs opened from outside the runs folder (File → Open run…, --open-run, a checkpoint's run). They stay here until "
                             "you remove them (right-click, or Delete); their files are never touched."),
                          rows, [this](const QString& key) { return plotted_.contains(key); });
}

RunsTreeModel::RunRow RunsSidebar::openedRowFor(const RunEntry& listed, double now) const {
    // The second line is the folder it lies in: these come from anywhere.
    RunsTreeModel::RunRow row = rowFor(listed, RunPalette::key({}, listed.path), tr("this computer"), now);
    row.hostText = QDir::toNativeSeparators(QFileInfo(listed.path).absolutePath());
    return row;
}

}  // namespace streetgan::ui
