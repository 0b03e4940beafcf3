// The main window: runs sidebar, dashboard and sample grids in the centre, system and cost
// panels on the right, toolbar (new run, open, connect, pause/resume/stop, checkpoint-now,
// sample-now), status bar with the connection state and progress of long work. It wires pages
// and panels to RunSessions; the work itself lives in those classes. GUI thread.
#pragma once

#include <QHash>
#include <QList>
#include <QMainWindow>
#include <QPointer>

class QAction;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QMenu;

namespace streetgan::ui {

class AppSettings;
class CheckpointBrowserPage;
class CostPanel;
class DashboardPage;
class ExplorerPage;
class RemoteHost;
class RunSession;
class RunsSidebar;
class SamplesPage;
class SshPrompter;
class SystemPanel;
struct HostConfig;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// `workspace` empty: the remembered one (asked on first start unless `askWorkspace` is false).
    explicit MainWindow(const QString& workspace = {}, bool askWorkspace = true, QWidget* parent = nullptr);
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
    /// Connects to a host and lists its runs.
    RemoteHost* connectHost(const HostConfig& config);
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
    SshPrompter* prompter() const { return prompter_; }
    QString connectionText() const;

signals:
    void runOpened(streetgan::ui::RunSession* session);
    void runStartFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void buildActions();
    void setActive(RunSession* s);
    void closeActiveRun();
    void updatePanels();
    void updateActions();
    void chooseWorkspace(bool firstStart);
    void showError(const QString& what, const QString& todo);
    void rebuildRecentMenu();
    void newRunDialog();
    void connectDialog();
    /// Opens the set-up dialog of streetgan-trainer on `host` (docs/remote-setup.md).
    void setUpTrainer(RemoteHost* host);

    AppSettings* settings_;
    SshPrompter* prompter_;
    RunsSidebar* sidebar_;
    DashboardPage* dashboard_;
    SamplesPage* samples_;
    CheckpointBrowserPage* checkpoints_;
    ExplorerPage* explorer_;
    bool explorerLoaded_ = false;  ///< the explorer holds something (else showExplorer() opens the demo)
    SystemPanel* system_;
    CostPanel* cost_;
    QStackedWidget* centre_;
    QTabWidget* tabs_;
    QLabel* connection_;
    QProgressBar* progress_;
    QMenu* recentMenu_;
    QList<RunSession*> sessions_;
    QList<RemoteHost*> hosts_;
    QHash<RunSession*, RemoteHost*> hostOf_;  ///< remote sessions -> their host (SSH options for the browser)
    QPointer<RunSession> active_;
    QAction *pause_, *resume_, *stop_, *checkpoint_, *sample_, *setLr_, *close_;
};

}  // namespace streetgan::ui
