// The main window: runs sidebar, dashboard and sample grids in the centre, system and cost
// panels on the right, toolbar (new run, open, connect, pause/resume/stop, checkpoint-now,
// sample-now), status bar with the connection state and progress of long work. It wires pages
// and panels to RunSessions; the work itself lives in those classes. GUI thread.
#pragma once

#include <QHash>
#include <QList>
#include <QMainWindow>
#include <QPointer>
#include <QSet>

#include <memory>

class QAction;
class QKeySequence;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QMenu;
class QActionGroup;
class QDockWidget;
class QToolBar;

namespace streetgan::ui {

class AppSettings;
class FrameThrottle;
class SettingsDialog;
class WelcomePage;
class CheckpointBrowserPage;
class CostPanel;
class IconSet;
class ThemeManager;
class DashboardPage;
class ExplorerPage;
class HostListModel;
class LocalRunStarter;
class MultiHostRuns;
class OpenRuns;
class RemoteHost;
class RunAlerts;
class RunSession;
class RunsSidebar;
class RunsTablePage;
class SamplesPage;
class SshPrompter;
class SystemPanel;
struct TrainerStatus;
struct HostConfig;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `workspace` empty: the remembered one, else $STREETGAN_WORKSPACE, else the XDG data location
    /// (WelcomePage::defaultRunsFolder, shown on the first start's welcome page: no dialog).
    explicit MainWindow(const QString& workspace = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens (and follows) a local run directory; returns its session.
    RunSession* openLocalRun(const QString& runDir);
    /// Opens a run of a connected host.
    RunSession* openRemoteRun(RemoteHost* host, const QString& runDir);
    /// Opens a checkpoint in the explorer; when it lies in a run directory, that run opens too (its
    /// checkpoint browser lists it). A checkpoint outside any run is added to the browser as a
    /// reference checkpoint.
    void openCheckpoint(const QString& checkpoint);
    /// Opens a latent-walk session (docs/cli.md) in the explorer.
    void openSession(const QString& sessionFile);
    /// Shows the latent explorer (the demo model when nothing else was opened in it).
    void showExplorer();
    /// The host with `config`'s identity (HostListModel: one per host, however it was reached),
    /// connected and listed; a host listed already is refreshed, not added again.
    RemoteHost* connectHost(const HostConfig& config);
    /// The remote hosts (the runs sidebar's host rows and New run's "Train on" list).
    HostListModel* hosts() const;
    /// File → Set up streetgan-trainer on a host…: the connected host (or the one picked), else
    /// the Connect dialog first; the set-up connects with the usual prompts.
    void setUpTrainerOnAHost();
    /// "Watch TensorBoard runs on HOST" (TensorBoardFolderDialog, one per host): the folder chosen
    /// becomes the host's runs folder at once. Opened by itself once for a host without
    /// streetgan-trainer and nothing under its runs folder.
    void watchTensorBoardOn(RemoteHost* host);
    /// Starts a local run with `start --detach ARGS`, then opens it.
    void startLocalRun(const QStringList& args);
    /// One click from the welcome page: a tiny CPU run on synthetic streets.
    void startTinyRun();

    RunSession* activeSession() const;
    DashboardPage* dashboard() const { return dashboard_; }
    SamplesPage* samples() const { return samples_; }
    CheckpointBrowserPage* checkpoints() const { return checkpoints_; }
    ExplorerPage* explorer() const { return explorer_; }
    SystemPanel* systemPanel() const { return system_; }
    CostPanel* costPanel() const { return cost_; }
    RunsSidebar* sidebar() const { return sidebar_; }
    RunsTablePage* runsTable() const { return runsTable_; }
    SshPrompter* prompter() const { return prompter_; }
    QString connectionText() const;

    /// Applies the look "system" (follow the desktop), "light" or "dark" (ThemeManager) and checks
    /// it in View → Theme; `remember`: saved as AppSettings::theme. An unknown mode is an error
    /// shown to the user and changes nothing.
    void applyTheme(const QString& mode, bool remember = true);
    ThemeManager* themeManager() const { return themes_; }
    IconSet* icons() const { return icons_; }
    /// Help → Keyboard shortcuts (ShortcutsDialog, generated from the menus and the explorer).
    void showShortcuts();

signals:
    void runOpened(streetgan::ui::RunSession* session);
    void runStartFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void buildDocks();   ///< the runs sidebar (left), system and cost (right)
    void buildCentre();  ///< the welcome page and the tabs of pages
    void buildStatusBar();
    void buildActions();  ///< menus and toolbar
    QList<QAction*> buildFileMenu(QMenu* file);
    void buildRunMenu(QMenu* runMenu);
    QAction* buildViewMenu(QMenu* view);
    void buildHelpMenu(QMenu* help);
    void buildToolBar(const QList<QAction*>& fileTools, QAction* systemToggle);
    /// A menu entry with `key`, calling `slot` (QAction::triggered).
    template <typename Slot>
    QAction* menuAction(QMenu* m, const QString& text, const QKeySequence& key, Slot slot);
    /// The sidebar, hosts, dashboard and cost panel to the window and the settings.
    void wirePages();
    /// The runs folder at start: `workspace` (--workspace), else the remembered one, ...
    void useStartWorkspace(const QString& workspace);
    /// The window's reactions to the open runs (OpenRuns' signals).
    void wireRuns();
    /// The Runs table page to the hosts, prices, settings, checkpoints and the dashboard.
    void wireRunsTable();
    /// The runs selected in the Runs table become the runs the plots overlay (opened if need be).
    void plotTableSelection(const QStringList& keys);
    /// Runs started on this computer (LocalRunStarter): opened when they run, else one error.
    void wireLocalStarts();
    /// Runs across several hosts (MultiHostRuns): opened as rank 0's host's run once every rank
    /// met, else one error; Stop of one stops every rank on every host.
    void wireMultiHostRuns();
    /// Pages, panels, title and actions follow the active run.
    void showActive(RunSession* s);
    /// Hands the open run's state and step/total (its own events) to the sidebar.
    void showLiveState(RunSession* s);
    void updatePanels();
    void updateActions();
    /// How often the panels and the runs list show a followed run's new figures (issue 48: a
    /// label changing is laid out again, a list row measured again).
    static constexpr int kLiveMs = 500;
    /// The runs folder in use from now on: remembered, listed, named on the welcome page.
    void useWorkspace(const QString& dir);
    /// File → Settings… (SettingsDialog; raised when open already).
    void openSettings();
    void openRunDialog();
    /// One message per failure, in one place: a box when there is something to do (`todo`), else
    /// the status bar (showStatus).
    void showError(const QString& what, const QString& todo);
    /// A temporary status-bar message, elided to the room left of the permanent widgets (the
    /// connection state) with the whole text in the tooltip: the two never run into each other.
    void showStatus(const QString& text, int ms = 0);
    /// The window's reactions to a host of hosts_ (once per host, HostListModel::hostAdded).
    void wireHost(RemoteHost* host);
    /// A Slurm login node's reactions: a submitted run opens at once (queued: the runs list shows
    /// Slurm's reason) and is followed again, live, once its listing shows the trainer's first step.
    void wireSlurmHost(RemoteHost* host);
    /// Re-follows the submitted runs of `host` whose jobs have started (followSlurmRun_).
    void followStartedSlurmRuns(RemoteHost* host);
    /// Stop of the active run: scancel of its job for a Slurm run, else the trainer's `stop`.
    void stopActiveRun();
    /// Whether the active run is a Slurm run whose job has not ended (Stop cancels it).
    bool stoppableSlurmRun() const;
    void rebuildRecentMenu();
    void newRunDialog();
    void connectDialog();
    /// Opens the set-up dialog of streetgan-trainer on `host` (docs/remote-setup.md).
    void setUpTrainer(RemoteHost* host);
    /// The status bar's line for a host whose trainer needs the user (not installed, or another
    /// protocol): what it can do there now and how to set it up.
    void showTrainerHint(RemoteHost* host, const TrainerStatus& t);
    /// Keeps the window inside the screen's available geometry: `initial` (nothing restored) sizes
    /// it to min(1400x860, 90 % of the screen); a restored one is clamped. On screens under 1500 px
    /// wide the System-and-cost dock goes under the Runs dock (tabbed) and the toolbar shows icons only.
    void fitToScreen(bool initial);

    std::unique_ptr<AppSettings> settings_;
    WelcomePage* welcome_ = nullptr;           ///< the centre's page while no run is open
    QPointer<SettingsDialog> settingsDialog_;  ///< while open
    FrameThrottle* liveThrottle_ = nullptr;
    QList<QPointer<RunSession>> liveSessions_;     ///< drained since the panels last showed them
    QHash<const RunSession*, QString> liveState_;  ///< each open run's state as last drained
    LocalRunStarter* starter_ = nullptr;
    MultiHostRuns* multiHost_ = nullptr;
    QHash<RemoteHost*, QSet<QString>> waitingSlurmRuns_;  ///< submitted runs not followed live yet
    QSet<QString> tensorBoardOffered_;                    ///< hosts (identities) whose TensorBoard dialog opened by itself
    SshPrompter* prompter_;
    /// The open runs and the hosts; destroyed before the pages that show them (members go before
    /// the child widgets).
    std::unique_ptr<OpenRuns> runs_;
    RunAlerts* alerts_;  ///< desktop notifications of the open runs (its DesktopNotifier is a child of this window)
    RunsSidebar* sidebar_;
    DashboardPage* dashboard_;
    SamplesPage* samples_;
    CheckpointBrowserPage* checkpoints_;
    ExplorerPage* explorer_;
    RunsTablePage* runsTable_;
    bool explorerLoaded_ = false;  ///< the explorer holds something (else showExplorer() opens the demo)
    SystemPanel* system_;
    CostPanel* cost_;
    QStackedWidget* centre_;
    QTabWidget* tabs_;
    QLabel* connection_;
    QProgressBar* progress_;
    QMenu* recentMenu_;
    QAction *pause_, *resume_, *stop_, *checkpoint_, *sample_, *setLr_, *close_;
    IconSet* icons_ = nullptr;        ///< the actions' icons, re-coloured on theme changes
    ThemeManager* themes_ = nullptr;  ///< light/dark (View → Theme, applyTheme)
    QActionGroup* themeGroup_ = nullptr;
    QDockWidget* runsDock_ = nullptr;
    QDockWidget* systemDock_ = nullptr;
    QToolBar* toolBar_ = nullptr;
};

}  // namespace streetgan::ui
