// The runs sidebar: local runs under the workspace folder, the local runs opened from elsewhere
// (the "Opened" group: File → Open run…, --open-run, a checkpoint's run), and each connected
// remote host with its runs. Each run shows its name, host, a state badge (running, paused, finished, stopped,
// failed, crashed, stalled: colour and word) and step/total, elided, the full text in a tooltip;
// a filter box keeps the runs whose name or host contains its text. A run's check box says
// whether the dashboard plots it (plotToggled; the dashboard answers with setPlotted, see
// DashboardPage::linkSidebar), and a checked run shows its plot colour (RunPalette) as a swatch.
// The sidebar remembers its own width (QSettings "runs/sidebarWidth", written when it is
// destroyed; its dock's width when docked) and, docked in a QMainWindow, gives its dock that
// width when first shown (QMainWindow::resizeDocks(preferredWidth()), queued after the show).
// The checked runs can outlive a restart: plottedRuns() is what to remember (plottedRunsChanged
// says when it changes) and restorePlotted() checks those runs again as they are listed, asking
// the dashboard to open them (plotToggled); the caller stores the list (AppSettings::plottedRuns).
// The Opened runs outlive a restart the same way (openedRuns(), openedRunsChanged, restoreOpened();
// AppSettings::openedRuns): each stays until the user removes it (context menu, or Delete in the
// tree), even when its folder is gone, which shows greyed as "missing"; one that the workspace
// lists shows there instead, never twice. They are listed with the workspace's runs, by the same
// worker (LocalRunLister).
// The rows live in a RunsTreeModel shown through a RunsFilterProxy by a QTreeView. Listing runs
// on workers (LocalRunLister, RemoteHost); refreshed every few seconds. GUI thread.
#pragma once

#include <QHash>
#include <QModelIndex>
#include <QPointer>
#include <QSet>
#include <QWidget>

#include "common/RunEntry.h"
#include "runs/RunsTreeModel.h"

class QAction;
class QLineEdit;
class QMenu;
class QTreeView;
class QThread;
class QTimer;

namespace streetgan::ui {

class HostListModel;
class LocalRunLister;
class RemoteHost;
class RunsFilterProxy;
class RunsTreeModel;

class RunsSidebar : public QWidget {
    Q_OBJECT
public:
    /// Narrower, a run's name and its badge no longer fit side by side (1280x800 leaves ~950 px
    /// to the dashboard with this width and the system dock).
    static constexpr int kMinimumWidth = 220;
    static constexpr int kDefaultWidth = 280;
    static constexpr int kMaximumRememberedWidth = 900;
    /// A running run whose last event is older than this shows as "stalled": a live trainer writes
    /// a system event every 2 s (300 s leaves room for a remote host's clock being off).
    static constexpr double kStalledAfterS = 300;

    explicit RunsSidebar(QWidget* parent = nullptr);
    ~RunsSidebar() override;
    void setWorkspace(const QString& dir);
    QString workspace() const { return workspace_; }
    void refresh();
    /// Shows the hosts of `model` (one item per row, added and removed with its rows).
    void setHostModel(HostListModel* model);
    void addHost(RemoteHost* host);
    void removeHost(RemoteHost* host);
    /// The open run `runKey`'s state and step/total as its own event stream has them (RunSession:
    /// the same events as its plots): they replace the last listing's, which is seconds old (and
    /// a remote host's is not re-listed on a timer), until forgetLive(runKey).
    void showLive(const QString& runKey, const QString& state, qint64 step, qint64 totalSteps);
    void forgetLive(const QString& runKey);
    QTreeView* view() const { return view_; }
    RunsTreeModel* model() const { return model_; }
    RunsFilterProxy* filterModel() const { return proxy_; }
    /// The state badge for a run state (coloured dot).
    static QIcon badge(const QString& state);
    /// The state shown for a listed run: its state, or "stalled" for a running one silent for
    /// more than kStalledAfterS at `now` (seconds since the epoch).
    static QString shownState(const RunEntry& run, double now);

    /// The width to give the sidebar's dock at start-up: the width it (its dock) had when last
    /// destroyed (within [kMinimumWidth, kMaximumRememberedWidth]), else kDefaultWidth.
    int preferredWidth() const;

    /// The filter: runs whose name or host contains `text` (case-insensitive) stay visible.
    void setFilter(const QString& text);
    QString filter() const;
    QLineEdit* filterEdit() const { return filter_; }

    /// Checks or unchecks the run `runKey` (RunPalette::key) without emitting plotToggled.
    void setPlotted(const QString& runKey, bool on);
    bool isPlotted(const QString& runKey) const { return plotted_.contains(runKey); }
    /// The checked runs' keys, sorted, with the restored ones not listed yet (a remote host not
    /// connected yet keeps its runs' boxes for when it is).
    QStringList plottedRuns() const;
    /// The runs checked before a restart: each is checked, and plotToggled(key, true) emitted so
    /// the dashboard opens and plots it, once it is listed (at once when it already is). A local
    /// run missing from the workspace's next listing is forgotten (deleted, or another folder).
    void restorePlotted(const QStringList& runKeys);
    /// Asks for the run `runKey` to be opened (openLocal / openRemote); false when not listed.
    bool openRun(const QString& runKey);
    /// The listed run `runKey`'s row in model() (column 0), invalid when not listed.
    QModelIndex runIndex(const QString& runKey) const;

    /// A local run was opened (from anywhere): unless the workspace lists it (or it lies directly
    /// in the workspace, listed next time), it joins the Opened group and openedRunsChanged.
    void addOpened(const QString& runDir);
    /// The Opened runs' folders (absolute, clean: RunPalette::key), in the order opened; those
    /// the workspace lists (not shown) included.
    QStringList openedRuns() const { return opened_; }
    /// The Opened runs remembered from the last start (no openedRunsChanged).
    void restoreOpened(const QStringList& runDirs);
    /// Forgets these Opened runs (their files stay); openedRunsChanged when one was there.
    void removeOpened(const QStringList& runDirs);
    /// "Remove from list", for the Opened runs selected in view(): its shortcut is Delete while the
    /// tree has focus.
    QAction* removeOpenedAction() const { return removeOpened_; }

signals:
    void openLocal(const QString& runDir);
    void openRemote(streetgan::ui::RemoteHost* host, const QString& runDir);
    /// The user checked (plot it) or unchecked (hide it from the plots) the run `runKey`.
    void plotToggled(const QString& runKey, bool on);
    /// plottedRuns() changed (the user's box, the dashboard's setPlotted, a restored run).
    void plottedRunsChanged(const QStringList& runKeys);
    /// openedRuns() changed (a run opened from outside the workspace, or removed from the list).
    void openedRunsChanged(const QStringList& runDirs);
    /// The user asked to set up (install or update) streetgan-trainer on `host`.
    void setUpTrainerRequested(streetgan::ui::RemoteHost* host);
    /// The user asked to watch TensorBoard runs on `host` (a folder of its, TensorBoardFolderDialog).
    void watchTensorBoardRequested(streetgan::ui::RemoteHost* host);
    /// The user asked to remove a host that was never reached (HostListModel::removable).
    void removeHostRequested(streetgan::ui::RemoteHost* host);
    void localListed(int runs);

public:
    /// The context menu of a host's item (Set up streetgan-trainer…, Refresh); the caller owns it.
    QMenu* hostMenu(RemoteHost* host);
    /// The host's row in model() (column 0), invalid when it has none.
    QModelIndex hostIndex(RemoteHost* host) const;
    /// The context menu of Opened runs (Remove from list, for `runDirs`); the caller owns it.
    QMenu* openedMenu(const QStringList& runDirs);

protected:
    void resizeEvent(QResizeEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    void wireLister();
    void showContextMenu(const QPoint& pos);
    void fill(const QModelIndex& group, const RunEntryList& runs);
    /// The Opened group: the `opened` runs (LocalRunLister's entries) still in opened_ that the
    /// workspace does not list.
    void fillOpened(const RunEntryList& opened);
    RunsTreeModel::RunRow openedRowFor(const RunEntry& listed, double now) const;
    /// The keys of the runs listed under this computer (the workspace).
    QSet<QString> workspaceKeys() const;
    /// The Opened runs selected in the view (their folders).
    QStringList selectedOpened() const;
    /// A run's row: `listed` with the live state applied, as the view shows it.
    RunsTreeModel::RunRow rowFor(const RunEntry& listed, const QString& key, const QString& hostText, double now) const;
    void showHostState(RemoteHost* host);
    void showPlotted(const QString& runKey);
    /// Checks the restored runs listed under `group` (the local one: forgets the unlisted local ones).
    void resolveRestored(const QModelIndex& group);
    RunsTreeModel* model_;
    RunsFilterProxy* proxy_;
    QTreeView* view_;
    QLineEdit* filter_;
    QSet<QString> plotted_;
    QSet<QString> restored_;  ///< restorePlotted() keys not listed yet
    struct Live {
        QString state;
        qint64 step = 0, totalSteps = 0;
    };
    QHash<QString, Live> live_;  ///< showLive() of the open runs, by key
    QStringList opened_;         ///< openedRuns()
    RunEntryList openedListed_;  ///< the last listing of opened_ (to redraw at once on a removal)
    QAction* removeOpened_;
    QString workspace_;
    QThread* thread_;
    LocalRunLister* lister_;
    QTimer* timer_;
    quint64 job_ = 0;
    bool listing_ = false;  ///< a listing is in flight on the worker
    bool again_ = false;    ///< refresh() was asked for meanwhile
    int shownWidth_ = 0;    ///< the width while visible (saved on destruction)
    bool sized_ = false;    ///< the dock got preferredWidth() (first show)
    void listingDone();
};

}  // namespace streetgan::ui
