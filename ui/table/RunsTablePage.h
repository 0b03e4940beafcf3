// The Runs table page (issue 43): every run of the workspace and of the connected hosts in one
// table (RunsTableModel through RunsTableProxy), a row per run with its settings, state, cost and
// outcomes. Toolbar: the filter box (RunsTableProxy::setFilterText), "Differences only" (hides the
// setting columns equal across the selected runs, or across all shown when fewer than two are
// selected), "Group by" (RunsGroupModel in place of the table), a Columns menu, Export CSV… and
// Open best checkpoint (a remote run's is downloaded first, with progress, and opened as a local
// one). The header: click sorts, shift-click adds a sort key; its context menu
// hides, pins (a frozen view on the left sharing the model and selection), filters a column and
// picks an outcome column's statistic. Below, the settings panel (SettingsTreeModel: the selected
// run's configuration, or two selected runs side by side with their differences marked) and, when
// present, the parallel-coordinates and scatter views over the same runs (brushing an axis filters
// the table). The column layout (hidden, pinned, order, statistics, the header's filters: by column
// id; the filter box's text) is what columnLayout() returns and restoreColumnLayout() applies;
// layoutChanged says when the user changed it. A filter that hides selected runs also takes them off
// the dashboard: runsSelected is announced again with the runs still shown.
// Filling: the workspace on a RunRecordLister worker thread, each host through
// RemoteHost::listRecords. The selection (selectedKeys) is announced as runsSelected, which the
// main window makes the dashboard's plotted runs. GUI thread.
#pragma once

#include <QHash>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QVariantMap>
#include <QWidget>

#include <functional>

#include "remote/RemoteHostRecords.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QStackedWidget;
class QTableView;
class QThread;
class QTimer;
class QTreeView;

namespace streetgan::ui {

class BestCheckpointDownload;
class HostListModel;
class ParallelCoordinatesView;
class RunScatterView;
class RemoteHost;
class RunRecordLister;
class RunsGroupModel;
class RunsTableModel;
class RunsTableProxy;
class SettingsTreeModel;

class RunsTablePage : public QWidget {
    Q_OBJECT
public:
    explicit RunsTablePage(QWidget* parent = nullptr);
    ~RunsTablePage() override;

    /// Lists the runs under `dir` (this computer's) now and on refresh().
    void setWorkspace(const QString& dir);
    /// The connected hosts: each one's runs are listed when it is added and on refresh().
    void setHostModel(HostListModel* hosts);
    /// Lists the workspace and every host again.
    void refresh();
    /// The price per hour of a host's runs (the Cost column); `price(label)` < 0: unknown.
    void setPriceLookup(std::function<double(const QString&)> price);

    RunsTableModel* model() const { return model_; }
    RunsTableProxy* proxy() const { return proxy_; }
    RunsGroupModel* groups() const { return groups_; }
    SettingsTreeModel* settingsModel() const { return settings_; }
    QTableView* table() const { return table_; }
    QTableView* pinnedTable() const { return pinned_; }
    QTreeView* settingsView() const { return settingsView_; }
    QTreeView* groupTree() const { return groupTree_; }
    QLineEdit* filterEdit() const { return filter_; }

    /// The keys (RunPalette::key) of the selected runs, in the table's order.
    QStringList selectedKeys() const;
    /// Selects the rows of `keys` (the others are deselected).
    void selectKeys(const QStringList& keys);
    /// Applies the filter box's text; returns "" or its problem (also shown under the toolbar).
    QString setFilterText(const QString& text);
    /// The header's filter of the model's column `column` (ColumnFilter's syntax; "" clears it),
    /// remembered in the layout by column id; returns "" or its problem (also shown under the
    /// toolbar). A brush on the parallel coordinates filters too, but is not remembered: it shows
    /// only while its axis is drawn.
    QString setColumnFilter(int column, const QString& text);
    void setDifferencesOnly(bool on);
    /// Groups by the model's column `column` (-1: the plain table). The groups show as a tree:
    /// selecting a group selects its runs, selecting runs in it selects those (runsSelected).
    void setGroupColumn(int column);
    void setColumnHidden(int column, bool hidden);
    bool isColumnHidden(int column) const;
    /// Pinned columns show in the frozen view on the left, in pin order.
    void setColumnPinned(int column, bool pinned);
    bool isColumnPinned(int column) const;
    /// Whether the main view shows `column` now (not hidden, pinned or hidden by differences only).
    bool isColumnShown(int column) const;
    /// Moves the column with id `id` to visual position `to` of the main view.
    void moveColumn(const QString& id, int to);
    /// The visible columns in their visual order: pinned first (what Export CSV writes).
    QList<int> visibleColumns() const;
    /// Writes the table as shown to `path`; "" or the one-line reason it failed.
    QString exportCsv(const QString& path) const;
    /// Opens the best checkpoint of the model's row `row` (openCheckpointRequested); a remote run's
    /// is downloaded first (bestDownload(): progress, Cancel; a host that cannot be reached is one
    /// line in statusMessage). False when the run has none or its host is not connected.
    bool openBest(int row);
    BestCheckpointDownload* bestDownload() const { return download_; }

    QVariantMap columnLayout() const;
    void restoreColumnLayout(const QVariantMap& layout);
    /// The header's context menu for the model's column `column` (owned by `parent`).
    QMenu* headerMenu(int column, QWidget* parent);

signals:
    void runsSelected(const QStringList& keys);
    /// A local checkpoint to open in the checkpoint browser and the explorer (a remote run's best
    /// one: once downloaded into the cache).
    void openCheckpointRequested(const QString& path);
    void layoutChanged(const QVariantMap& layout);
    void statusMessage(const QString& message);
    /// A listing reached the table (`source`: "" for the workspace, else the host's label).
    void sourceListed(const QString& source, int runs);

private:
    void buildToolBar();
    void buildViews();
    void buildPlots();
    void wireHeader(QTableView* view);
    void wireSelection();
    void addHost(RemoteHost* host);
    void listWorkspace();
    void applyColumns();
    void applyOrder();
    void applyStatistics();
    /// The remembered header filters of the columns listed now, and the filter box's text again
    /// when a column it names was not listed yet.
    void applyFilters();
    /// Announces runsSelected when a filter changed which selected runs are shown.
    void selectionNarrowed();
    void updateDifferences();
    void updateSettingsPanel();
    void updateGroupChoices();
    /// The outcome picker of the parallel coordinates: every outcome column, the SWD first chosen.
    void updateOutcomeChoices();
    /// The parallel coordinates' axes: the settings that vary across the runs (not hidden), then
    /// the chosen outcome, which also colours the lines.
    void updateAxes();
    void headerClicked(int column);
    void changed();
    int currentRow() const;
    RunsTableModel* model_;
    RunsTableProxy* proxy_;
    RunsGroupModel* groups_;
    SettingsTreeModel* settings_;
    QTableView* table_;
    QTableView* pinned_;
    QTreeView* groupTree_;
    QStackedWidget* tables_;
    QTreeView* settingsView_;
    ParallelCoordinatesView* parallel_ = nullptr;
    RunScatterView* scatter_ = nullptr;
    QLineEdit* filter_;
    QLabel* filterError_;
    BestCheckpointDownload* download_;
    QCheckBox* differences_;
    QComboBox* groupBy_;
    QComboBox* outcome_ = nullptr;
    QTimer* axesTimer_ = nullptr;  ///< coalesces the model's changes into one updateAxes()
    QMenu* columnsMenu_;
    QThread* thread_;
    RunRecordLister* lister_;
    QTimer* selectionTimer_;
    QString workspace_;
    quint64 job_ = 0;
    bool listing_ = false, again_ = false;
    QPointer<HostListModel> hosts_;
    std::function<double(const QString&)> price_;
    QSet<QString> hidden_;             ///< column ids the user hid
    QStringList pinnedIds_;            ///< column ids pinned, in pin order
    QStringList order_;                ///< the remembered visual order of column ids
    QSet<int> diffHidden_;             ///< columns hidden by differences only
    QHash<QString, int> statistics_;   ///< restored statistics by column id (Statistic as int)
    QHash<QString, QString> filters_;  ///< the header's filters by column id (also of columns not listed yet)
    QStringList announced_;            ///< the keys runsSelected gave last
    bool applyingOrder_ = false;
};

}  // namespace streetgan::ui
