#include "table/RunsTablePage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <vector>

#include "common/WorkerThreads.h"
#include "remote/HostListModel.h"
#include "remote/RemoteHost.h"
#include "table/BestCheckpointDownload.h"
#include "table/ColumnFilter.h"
#include "table/ParallelCoordinatesView.h"
#include "table/RunRecordLister.h"
#include "table/RunScatterView.h"
#include "table/RunsCsv.h"
#include "table/RunsGroupModel.h"
#include "table/RunsTableModel.h"
#include "table/RunsTableProxy.h"
#include "table/RunsTableRoles.h"
#include "table/SettingsTreeModel.h"

namespace streetgan::ui {

namespace {

std::vector<RunRecord> toVector(const RunRecordList& list) { return std::vector<RunRecord>(list.begin(), list.end()); }

// The axes the parallel-coordinates view starts with: more would be unreadable at a page's width.
constexpr int kMaxAxes = 10;
// The workspace is listed again this often while the page is shown (only what changed is read).
constexpr int kRelistMs = 10000;

}  // namespace

RunsTablePage::RunsTablePage(QWidget* parent)
    : QWidget(parent),
      model_(new RunsTableModel(this)),
      proxy_(new RunsTableProxy(model_, this)),
      groups_(new RunsGroupModel(proxy_, this)),
      settings_(new SettingsTreeModel(this)),
      thread_(new QThread(this)),
      lister_(new RunRecordLister),
      selectionTimer_(new QTimer(this)) {
    setObjectName("runsTablePage");
    buildToolBar();
    buildViews();
    buildPlots();
    wireSelection();
    lister_->moveToThread(thread_);
    connect(thread_, &QThread::finished, lister_, &QObject::deleteLater);
    connect(lister_, &RunRecordLister::partial, this, [this](quint64 job, const RunRecordList& records) {
        if (job == job_) model_->upsert({}, toVector(records));
    });
    connect(lister_, &RunRecordLister::listed, this, [this](quint64 job, const RunRecordList& records) {
        listing_ = false;
        if (job == job_) {
            model_->replaceSource({}, toVector(records));
            emit sourceListed({}, static_cast<int>(records.size()));
        }
        if (again_) {
            again_ = false;
            listWorkspace();
        }
    });
    connect(lister_, &RunRecordLister::failed, this, [this](quint64, const QString& m) {
        listing_ = false;
        emit statusMessage(tr("Runs table: %1").arg(m));
        if (again_) {
            again_ = false;
            listWorkspace();
        }
    });
    thread_->start();
    connect(model_, &QAbstractItemModel::columnsInserted, this, [this] {
        applyStatistics();
        applyFilters();
        applyOrder();
        applyColumns();
        updateGroupChoices();
        updateOutcomeChoices();
    });
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(proxy_, signal, this, [this] {
            if (differences_->isChecked()) updateDifferences();
        });
    auto* relist = new QTimer(this);
    connect(relist, &QTimer::timeout, this, [this] {
        if (isVisible()) listWorkspace();
    });
    relist->start(kRelistMs);
}

RunsTablePage::~RunsTablePage() { WorkerThreads::quitWithoutBlocking(thread_); }

void RunsTablePage::buildToolBar() {
    filter_ = new QLineEdit;
    filter_->setObjectName("runsTableFilter");
    filter_->setClearButtonEnabled(true);
    filter_->setPlaceholderText(tr("Filter: a run's name, or COLUMN = FILTER; …  (lr = 1e-4..1e-3; preset = tiny-32,small-64; host = /gpu/)"));
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& t) {
        setFilterText(t);
        changed();
    });
    differences_ = new QCheckBox(tr("Differences only"));
    differences_->setToolTip(tr("Hide the settings that are the same in the selected runs (in all runs shown when fewer than two are selected)"));
    connect(differences_, &QCheckBox::toggled, this, [this] { updateDifferences(); });
    groupBy_ = new QComboBox;
    groupBy_->setObjectName("runsTableGroupBy");
    groupBy_->addItem(tr("No grouping"), -1);
    connect(groupBy_, &QComboBox::activated, this, [this](int i) { setGroupColumn(groupBy_->itemData(i).toInt()); });
    auto* columns = new QToolButton;
    columns->setText(tr("Columns"));
    columns->setPopupMode(QToolButton::InstantPopup);
    columnsMenu_ = new QMenu(columns);
    columns->setMenu(columnsMenu_);
    connect(columnsMenu_, &QMenu::aboutToShow, this, [this] {
        columnsMenu_->clear();
        columnsMenu_->addAction(tr("Show all columns"), this, [this] {
            hidden_.clear();
            applyColumns();
            changed();
        });
        columnsMenu_->addSeparator();
        for (int c = 0; c < model_->columnCount(); ++c) {
            QAction* a = columnsMenu_->addAction(model_->headerData(c, Qt::Horizontal).toString());
            a->setCheckable(true);
            a->setChecked(!isColumnHidden(c));
            connect(a, &QAction::toggled, this, [this, c](bool on) { setColumnHidden(c, !on); });
        }
    });
    auto* exportCsvButton = new QPushButton(tr("Export CSV…"));
    connect(exportCsvButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the runs table"), workspace_ + "/runs.csv", tr("CSV (*.csv)"));
        if (path.isEmpty()) return;
        const QString error = exportCsv(path);
        emit statusMessage(error.isEmpty() ? tr("Wrote %1").arg(path) : error);
    });
    auto* best = new QPushButton(tr("Open best checkpoint"));
    best->setToolTip(tr("The selected run's best checkpoint in the checkpoint browser and the explorer (or double-click its Best checkpoint cell)"));
    connect(best, &QPushButton::clicked, this, [this] {
        if (const int row = currentRow(); row >= 0) openBest(row);
    });
    auto* bar = new QHBoxLayout;
    bar->addWidget(filter_, 1);
    for (QWidget* w : std::initializer_list<QWidget*>{differences_, new QLabel(tr("Group by")), groupBy_, columns, exportCsvButton, best}) bar->addWidget(w);
    download_ = new BestCheckpointDownload;
    connect(download_, &BestCheckpointDownload::fetched, this, [this](const QString& run, const QString& local) {
        emit statusMessage(tr("%1: its best checkpoint is downloaded to %2").arg(run, local));
        emit openCheckpointRequested(local);
    });
    connect(download_, &BestCheckpointDownload::failed, this, &RunsTablePage::statusMessage);
    filterError_ = new QLabel;
    filterError_->setObjectName("runsTableFilterError");
    filterError_->setWordWrap(true);
    filterError_->setVisible(false);
    auto* top = new QVBoxLayout(this);
    top->addLayout(bar);
    top->addWidget(filterError_);
    top->addWidget(download_);
}

void RunsTablePage::buildViews() {
    table_ = new QTableView;
    table_->setObjectName("runsTable");
    pinned_ = new QTableView;
    pinned_->setObjectName("runsTablePinned");
    for (QTableView* v : {pinned_, table_}) {
        v->setModel(proxy_);
        v->setSelectionBehavior(QAbstractItemView::SelectRows);
        v->setSelectionMode(QAbstractItemView::ExtendedSelection);
        v->verticalHeader()->setVisible(false);
        v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 8);
        v->setEditTriggers(QAbstractItemView::NoEditTriggers);
        v->setWordWrap(false);
        wireHeader(v);
        connect(v, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
            const QModelIndex s = proxy_->mapToSource(i);
            if (s.column() == RunsTableModel::BestCheckpoint) openBest(s.row());
        });
    }
    table_->horizontalHeader()->setSectionsMovable(true);
    pinned_->setSelectionModel(table_->selectionModel());
    pinned_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    pinned_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    pinned_->setVisible(false);
    // The frozen columns scroll with the table, row for row.
    connect(table_->verticalScrollBar(), &QScrollBar::valueChanged, pinned_->verticalScrollBar(), &QScrollBar::setValue);
    connect(pinned_->verticalScrollBar(), &QScrollBar::valueChanged, table_->verticalScrollBar(), &QScrollBar::setValue);
    connect(table_->horizontalHeader(), &QHeaderView::sectionMoved, this, [this] {
        if (applyingOrder_) return;
        order_.clear();
        const QHeaderView* h = table_->horizontalHeader();
        for (int v = 0; v < h->count(); ++v) order_ << model_->column(h->logicalIndex(v)).id();
        changed();
    });
    groupTree_ = new QTreeView;
    groupTree_->setObjectName("runsGroupTree");
    groupTree_->setModel(groups_);
    groupTree_->setUniformRowHeights(true);
    groupTree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    groupTree_->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Selecting a group (all its runs) or runs in it selects them in the table: the dashboard
    // plots them as it does the table's selection.
    connect(groupTree_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        QStringList keys;
        for (const QModelIndex& i : groupTree_->selectionModel()->selectedRows()) {
            if (groups_->tableRow(i) >= 0) {
                keys << i.data(RunsTableRoles::KeyRole).toString();
                continue;
            }
            for (int r = 0; r < groups_->rowCount(i); ++r) keys << groups_->index(r, 0, i).data(RunsTableRoles::KeyRole).toString();
        }
        keys.removeDuplicates();
        if (!keys.isEmpty()) selectKeys(keys);
    });
    auto* plain = new QWidget;
    auto* plainLayout = new QHBoxLayout(plain);
    plainLayout->setContentsMargins(0, 0, 0, 0);
    plainLayout->setSpacing(0);
    plainLayout->addWidget(pinned_);
    plainLayout->addWidget(table_, 1);
    tables_ = new QStackedWidget;
    tables_->addWidget(plain);
    tables_->addWidget(groupTree_);
    settingsView_ = new QTreeView;
    settingsView_->setObjectName("runSettings");
    settingsView_->setModel(settings_);
    settingsView_->setAlternatingRowColors(true);
    auto* below = new QTabWidget;
    below->setObjectName("runsTableBelow");
    below->addTab(settingsView_, tr("Settings"));
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName("runsTableSplitter");
    split->addWidget(tables_);
    split->addWidget(below);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    static_cast<QVBoxLayout*>(layout())->addWidget(split, 1);
}

void RunsTablePage::buildPlots() {
    auto* below = findChild<QTabWidget*>("runsTableBelow");
    parallel_ = new ParallelCoordinatesView;
    parallel_->setObjectName("runsParallel");
    parallel_->setModel(model_);  // all runs: a brush filters the table, not the plot itself
    parallel_->setNameColumn(RunsTableModel::Run);
    outcome_ = new QComboBox;
    outcome_->setObjectName("runsParallelOutcome");
    outcome_->setToolTip(tr("The outcome the settings are drawn against: the last axis, and the lines' colour"));
    auto* parallelTab = new QWidget;
    auto* parallelLayout = new QVBoxLayout(parallelTab);
    parallelLayout->setContentsMargins(0, 4, 0, 0);
    auto* outcomeRow = new QHBoxLayout;
    outcomeRow->addWidget(new QLabel(tr("Settings that vary, against")));
    outcomeRow->addWidget(outcome_);
    outcomeRow->addStretch(1);
    parallelLayout->addLayout(outcomeRow);
    parallelLayout->addWidget(parallel_, 1);
    below->addTab(parallelTab, tr("Parallel coordinates"));
    axesTimer_ = new QTimer(this);
    axesTimer_->setSingleShot(true);
    connect(axesTimer_, &QTimer::timeout, this, &RunsTablePage::updateAxes);
    connect(outcome_, &QComboBox::activated, this, &RunsTablePage::updateAxes);
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved}) connect(model_, signal, axesTimer_, qOverload<>(&QTimer::start));
    connect(model_, &QAbstractItemModel::modelReset, axesTimer_, qOverload<>(&QTimer::start));
    connect(model_, &QAbstractItemModel::dataChanged, axesTimer_, qOverload<>(&QTimer::start));
    connect(parallel_, &ParallelCoordinatesView::brushChanged, this, [this](int column, double lo, double hi) {
        // A text axis (a preset, a device) is brushed by categories, whose positions are no
        // values of the column: filter by the names brushed, exactly.
        const QStringList names = parallel_->brushedCategories(column);
        if (!names.isEmpty()) {
            QStringList escaped;
            for (const QString& n : names) escaped << QRegularExpression::escape(n);
            proxy_->setColumnFilter(column, "/^(" + escaped.join('|') + ")$/");
            return;
        }
        proxy_->setColumnFilter(column, QString("%1..%2").arg(QString::number(lo, 'g', 17), QString::number(hi, 'g', 17)));
    });
    connect(parallel_, &ParallelCoordinatesView::brushCleared, this, [this](int column) { proxy_->setColumnFilter(column, {}); });
    auto* scatter = scatter_ = new RunScatterView;
    scatter->setObjectName("runsScatter");
    scatter->setModel(model_);
    scatter->setNameColumn(RunsTableModel::Run);
    below->addTab(scatter, tr("Scatter"));
    connect(scatter, &RunScatterView::rowClicked, this, [this](const QString& key) { selectKeys({key}); });
    // The scatter's axes: the first setting and the first outcome shown (the user changes them there).
    connect(model_, &QAbstractItemModel::columnsInserted, scatter, [this, scatter] {
        if (scatter->property("axesChosen").toBool()) return;
        int x = -1, y = -1;
        for (int c = RunsTableModel::FixedCount; c < model_->columnCount(); ++c) {
            if (x < 0 && model_->column(c).kind == RunsTableModel::Kind::Setting) x = c;
            if (y < 0 && model_->column(c).kind == RunsTableModel::Kind::Outcome) y = c;
        }
        if (x < 0 || y < 0) return;
        scatter->setColumns(x, y);
        scatter->setProperty("axesChosen", true);
    });
}

void RunsTablePage::wireHeader(QTableView* view) {
    QHeaderView* h = view->horizontalHeader();
    h->setSectionsClickable(true);
    h->setSortIndicatorShown(false);  // the proxy's titles show every key's direction and rank
    h->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(h, &QHeaderView::sectionClicked, this, [this](int logical) { headerClicked(logical); });
    connect(h, &QHeaderView::customContextMenuRequested, this, [this, h](const QPoint& pos) {
        const int column = h->logicalIndexAt(pos);
        if (column < 0) return;
        QMenu* menu = headerMenu(column, this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(h->mapToGlobal(pos));
    });
}

void RunsTablePage::headerClicked(int column) { proxy_->addSortKey(column, QGuiApplication::keyboardModifiers() & Qt::ShiftModifier); }

QMenu* RunsTablePage::headerMenu(int column, QWidget* parent) {
    auto* menu = new QMenu(parent);
    const QString title = model_->headerData(column, Qt::Horizontal).toString();
    menu->addAction(tr("Sort by “%1”").arg(title), this, [this, column] { proxy_->addSortKey(column, false); });
    menu->addAction(tr("Add to the sort (Shift+click)"), this, [this, column] { proxy_->addSortKey(column, true); });
    menu->addSeparator();
    menu->addAction(tr("Filter “%1”…").arg(title), this, [this, column, title] {
        bool ok = false;
        const QString text = QInputDialog::getText(this, tr("Filter %1").arg(title), tr("A range (0.0001..0.001), a list (a,b,c) or /regular expression/:"),
                                                   QLineEdit::Normal, proxy_->columnFilter(column), &ok);
        if (!ok) return;
        setColumnFilter(column, text);
    });
    if (!proxy_->columnFilter(column).isEmpty()) menu->addAction(tr("Clear the filter"), this, [this, column] { setColumnFilter(column, {}); });
    if (model_->column(column).kind == RunsTableModel::Kind::Outcome) {
        QMenu* stat = menu->addMenu(tr("Statistic"));
        for (auto s : {RunsTableModel::Statistic::Last, RunsTableModel::Statistic::Min, RunsTableModel::Statistic::Max, RunsTableModel::Statistic::AtBest}) {
            QAction* a = stat->addAction(RunsTableModel::statisticName(s), this, [this, column, s] {
                model_->setStatistic(column, s);
                changed();
            });
            a->setCheckable(true);
            a->setChecked(model_->column(column).statistic == s);
        }
    }
    menu->addSeparator();
    const bool pinned = isColumnPinned(column);
    menu->addAction(pinned ? tr("Unpin") : tr("Pin to the left"), this, [this, column, pinned] { setColumnPinned(column, !pinned); });
    menu->addAction(tr("Hide “%1”").arg(title), this, [this, column] { setColumnHidden(column, true); });
    menu->addMenu(columnsMenu_);
    return menu;
}

void RunsTablePage::wireSelection() {
    selectionTimer_->setSingleShot(true);
    selectionTimer_->setInterval(150);  // a shift-extended selection is announced once
    connect(selectionTimer_, &QTimer::timeout, this, [this] {
        const QStringList keys = selectedKeys();
        parallel_->setHighlighted(QSet<QString>(keys.begin(), keys.end()));
        scatter_->setHighlighted(QSet<QString>(keys.begin(), keys.end()));
        announced_ = keys;
        emit runsSelected(keys);
    });
    // A filter that hides selected rows drops them from the selection (Qt's selection model
    // follows the proxy's removed rows): the dashboard then plots only the runs still shown.
    for (auto signal : {&QAbstractItemModel::rowsRemoved, &QAbstractItemModel::rowsInserted}) connect(proxy_, signal, this, &RunsTablePage::selectionNarrowed);
    connect(proxy_, &QAbstractItemModel::layoutChanged, this, &RunsTablePage::selectionNarrowed);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateSettingsPanel();
        if (differences_->isChecked()) updateDifferences();
        selectionTimer_->start();
    });
}

QStringList RunsTablePage::selectedKeys() const {
    QList<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows << i.row();
    std::sort(rows.begin(), rows.end());
    QStringList keys;
    for (int r : rows) keys << proxy_->index(r, 0).data(RunsTableRoles::KeyRole).toString();
    return keys;
}

void RunsTablePage::selectKeys(const QStringList& keys) {
    QItemSelection selection;
    for (const QString& k : keys) {
        const int row = model_->rowOf(k);
        if (row < 0) continue;
        const QModelIndex p = proxy_->mapFromSource(model_->index(row, 0));
        if (p.isValid()) selection.select(p, p.siblingAtColumn(proxy_->columnCount() - 1));
    }
    table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

int RunsTablePage::currentRow() const {
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : proxy_->mapToSource(rows.first()).row();
}

void RunsTablePage::updateSettingsPanel() {
    QList<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows << proxy_->mapToSource(i).row();
    std::sort(rows.begin(), rows.end());
    std::vector<nlohmann::json> settings;
    QStringList names;
    for (int r : rows.mid(0, 2)) {
        settings.push_back(model_->record(r).settings);
        names << model_->text(r, RunsTableModel::Run);
    }
    settings_->setRuns(settings, names);
    settingsView_->expandAll();
    settingsView_->resizeColumnToContents(0);
}

QString RunsTablePage::setFilterText(const QString& text) {
    if (filter_->text() != text) filter_->setText(text);  // textChanged comes back here
    QString error = proxy_->setFilterText(text);
    filterError_->setText(error);
    filterError_->setVisible(!error.isEmpty());
    if (differences_->isChecked()) updateDifferences();
    return error;
}

QString RunsTablePage::setColumnFilter(int column, const QString& text) {
    QString error = proxy_->setColumnFilter(column, text);
    filterError_->setText(error);
    filterError_->setVisible(!error.isEmpty());
    if (!error.isEmpty()) return error;
    const QString id = model_->column(column).id();
    if (text.trimmed().isEmpty())
        filters_.remove(id);
    else
        filters_.insert(id, text);
    if (differences_->isChecked()) updateDifferences();
    changed();
    return {};
}

void RunsTablePage::applyFilters() {
    for (auto it = filters_.cbegin(); it != filters_.cend(); ++it)
        if (const int c = model_->columnOf(it.key()); c >= 0 && proxy_->columnFilter(c) != it.value()) proxy_->setColumnFilter(c, it.value());
    if (!filterError_->text().isEmpty() && !filter_->text().isEmpty()) setFilterText(filter_->text());
}

void RunsTablePage::selectionNarrowed() {
    if (!selectionTimer_->isActive() && selectedKeys() != announced_) selectionTimer_->start();
}

void RunsTablePage::setDifferencesOnly(bool on) {
    differences_->setChecked(on);
    updateDifferences();
}

void RunsTablePage::updateDifferences() {
    diffHidden_.clear();
    if (differences_->isChecked()) {
        QList<int> rows;
        for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows << proxy_->mapToSource(i).row();
        if (rows.size() < 2) {
            rows.clear();
            for (int r = 0; r < proxy_->rowCount(); ++r) rows << proxy_->mapToSource(proxy_->index(r, 0)).row();
        }
        const QList<int> same = model_->uniformSettingColumns(rows);
        diffHidden_ = QSet<int>(same.begin(), same.end());
    }
    applyColumns();
}

void RunsTablePage::setGroupColumn(int column) {
    groups_->setGroupColumn(column);
    tables_->setCurrentIndex(column >= 0 ? 1 : 0);
    const int i = groupBy_->findData(column);
    if (i >= 0) groupBy_->setCurrentIndex(i);
}

void RunsTablePage::updateGroupChoices() {
    const int current = groupBy_->currentData().toInt();
    groupBy_->clear();
    groupBy_->addItem(tr("No grouping"), -1);
    for (int c = RunsTableModel::Run; c < model_->columnCount(); ++c) {
        const RunsTableModel::Column& col = model_->column(c);
        if (col.kind == RunsTableModel::Kind::Setting ||
            (col.kind == RunsTableModel::Kind::Fixed && (col.fixed == RunsTableModel::Host || col.fixed == RunsTableModel::State)))
            groupBy_->addItem(model_->headerData(c, Qt::Horizontal).toString(), c);
    }
    groupBy_->setCurrentIndex(std::max(0, groupBy_->findData(current)));
}

void RunsTablePage::setColumnHidden(int column, bool hidden) {
    const QString id = model_->column(column).id();
    if (hidden == hidden_.contains(id)) return;
    hidden ? (void)hidden_.insert(id) : (void)hidden_.remove(id);
    applyColumns();
    changed();
}

bool RunsTablePage::isColumnHidden(int column) const { return hidden_.contains(model_->column(column).id()); }

void RunsTablePage::setColumnPinned(int column, bool pinned) {
    const QString id = model_->column(column).id();
    if (pinned == pinnedIds_.contains(id)) return;
    pinned ? pinnedIds_.append(id) : (void)pinnedIds_.removeAll(id);
    applyColumns();
    changed();
}

bool RunsTablePage::isColumnPinned(int column) const { return pinnedIds_.contains(model_->column(column).id()); }

bool RunsTablePage::isColumnShown(int column) const { return !table_->isColumnHidden(column); }

void RunsTablePage::updateOutcomeChoices() {
    const QString current = outcome_->currentData().toString();
    QSignalBlocker quiet(outcome_);
    outcome_->clear();
    for (int c = RunsTableModel::FixedCount; c < model_->columnCount(); ++c)
        if (model_->column(c).kind == RunsTableModel::Kind::Outcome)
            outcome_->addItem(model_->headerData(c, Qt::Horizontal).toString(), model_->column(c).id());
    // The user's choice stays; at first the quality figure (lower is better), else the G loss.
    for (const QString& id : {current, QStringLiteral("scalar:swd"), QStringLiteral("scalar:fid"), QStringLiteral("scalar:loss_g")}) {
        const int i = id.isEmpty() ? -1 : outcome_->findData(id);
        if (i >= 0) {
            outcome_->setCurrentIndex(i);
            break;
        }
    }
    axesTimer_->start();
}

void RunsTablePage::updateAxes() {
    // A setting varies when the runs that have it do not all have one value (a TensorBoard run
    // without it does not make it vary), over all runs, not the filtered ones: brushing an axis
    // must not take it away.
    const auto varies = [this](int c) {
        QString first;
        for (int r = 0; r < model_->rowCount(); ++r) {
            const QString t = model_->text(r, c);
            if (t.isEmpty()) continue;
            if (first.isEmpty())
                first = t;
            else if (t != first)
                return true;
        }
        return false;
    };
    QVector<int> axes;
    for (int c = RunsTableModel::FixedCount; c < model_->columnCount() && axes.size() < kMaxAxes - 1; ++c)
        if (model_->column(c).kind == RunsTableModel::Kind::Setting && !hidden_.contains(model_->column(c).id()) && varies(c)) axes << c;
    const int outcome = model_->columnOf(outcome_->currentData().toString());
    if (outcome >= 0) axes << outcome;
    parallel_->setAxes(axes);
    parallel_->setColourColumn(outcome);
}

void RunsTablePage::applyColumns() {
    for (int c = 0; c < model_->columnCount(); ++c) {
        const QString id = model_->column(c).id();
        const bool hidden = hidden_.contains(id), pinned = pinnedIds_.contains(id);
        table_->setColumnHidden(c, hidden || pinned || diffHidden_.contains(c));
        pinned_->setColumnHidden(c, hidden || !pinned);
    }
    // The frozen view: the pinned columns in pin order, as wide as they are.
    QHeaderView* ph = pinned_->horizontalHeader();
    int width = 0, at = 0;
    for (const QString& id : pinnedIds_) {
        const int c = model_->columnOf(id);
        if (c < 0 || hidden_.contains(id)) continue;
        ph->moveSection(ph->visualIndex(c), at++);
        width += ph->sectionSize(c);
    }
    pinned_->setVisible(at > 0);
    pinned_->setFixedWidth(width + 2 * pinned_->frameWidth());
    if (axesTimer_) axesTimer_->start();
}

void RunsTablePage::applyOrder() {
    applyingOrder_ = true;
    QHeaderView* h = table_->horizontalHeader();
    int at = 0;
    for (const QString& id : order_) {
        const int c = model_->columnOf(id);
        if (c >= 0) h->moveSection(h->visualIndex(c), at++);
    }
    applyingOrder_ = false;
}

void RunsTablePage::moveColumn(const QString& id, int to) {
    const int c = model_->columnOf(id);
    if (c < 0) return;
    QHeaderView* h = table_->horizontalHeader();
    h->moveSection(h->visualIndex(c), std::clamp(to, 0, h->count() - 1));
}

QList<int> RunsTablePage::visibleColumns() const {
    QList<int> out;
    const QHeaderView* ph = pinned_->horizontalHeader();
    for (int v = 0; v < ph->count(); ++v)
        if (!ph->isSectionHidden(ph->logicalIndex(v))) out << ph->logicalIndex(v);
    const QHeaderView* h = table_->horizontalHeader();
    for (int v = 0; v < h->count(); ++v)
        if (!h->isSectionHidden(h->logicalIndex(v))) out << h->logicalIndex(v);
    return out;
}

QString RunsTablePage::exportCsv(const QString& path) const {
    // A thousand runs are a few hundred KB of text, written in milliseconds: no worker needed.
    if (tables_->currentIndex() == 1) {
        QList<int> all;
        for (int c = 0; c < groups_->columnCount(); ++c) all << c;
        return RunsCsv::write(path, *groups_, all);
    }
    return RunsCsv::write(path, *proxy_, visibleColumns());
}

bool RunsTablePage::openBest(int row) {
    if (row < 0 || row >= model_->rowCount()) return false;
    const QString path = model_->bestCheckpointPath(row);
    const QString name = model_->text(row, RunsTableModel::Run);
    if (path.isEmpty()) {
        emit statusMessage(tr("%1 has no best checkpoint yet (the trainer marks one when a quality metric improves).").arg(name));
        return false;
    }
    const QString label = model_->hostLabel(row);
    if (label.isEmpty()) {
        emit openCheckpointRequested(path);
        return true;
    }
    RemoteHost* host = nullptr;
    if (hosts_)
        for (RemoteHost* h : hosts_->hosts())
            if (h->label() == label) host = h;
    if (!host) {
        emit statusMessage(tr("%1: %2 is not connected now; connect to it to open the run's best checkpoint.").arg(name, label));
        return false;
    }
    // Downloaded (progress and Cancel in the strip under the toolbar), then opened as a local one.
    download_->start(host, name, path);
    return true;
}

void RunsTablePage::changed() { emit layoutChanged(columnLayout()); }

QVariantMap RunsTablePage::columnLayout() const {
    QVariantMap statistics;
    for (int c = 0; c < model_->columnCount(); ++c)
        if (model_->column(c).kind == RunsTableModel::Kind::Outcome && model_->column(c).statistic != RunsTableModel::Statistic::Last)
            statistics.insert(model_->column(c).id(), static_cast<int>(model_->column(c).statistic));
    for (auto it = statistics_.cbegin(); it != statistics_.cend(); ++it)
        if (model_->columnOf(it.key()) < 0) statistics.insert(it.key(), it.value());  // columns not listed yet keep theirs
    QStringList hidden(hidden_.begin(), hidden_.end());
    hidden.sort();
    QVariantMap filters;
    for (auto it = filters_.cbegin(); it != filters_.cend(); ++it) filters.insert(it.key(), it.value());
    return {{"hidden", hidden}, {"pinned", pinnedIds_}, {"order", order_}, {"statistics", statistics}, {"filters", filters}, {"filter", filter_->text()}};
}

void RunsTablePage::restoreColumnLayout(const QVariantMap& layout) {
    const QStringList hidden = layout.value("hidden").toStringList();
    hidden_ = QSet<QString>(hidden.begin(), hidden.end());
    pinnedIds_ = layout.value("pinned").toStringList();
    order_ = layout.value("order").toStringList();
    statistics_.clear();
    const QVariantMap stats = layout.value("statistics").toMap();
    for (auto it = stats.cbegin(); it != stats.cend(); ++it) statistics_.insert(it.key(), std::clamp(it.value().toInt(), 0, 3));
    filters_.clear();
    const QVariantMap filters = layout.value("filters").toMap();
    for (auto it = filters.cbegin(); it != filters.cend(); ++it)
        if (ColumnFilter::parse(it.value().toString()).isActive()) filters_.insert(it.key(), it.value().toString());  // a bad one is dropped
    setFilterText(layout.value("filter").toString());
    applyFilters();
    applyStatistics();
    applyOrder();
    applyColumns();
}

void RunsTablePage::applyStatistics() {
    for (auto it = statistics_.cbegin(); it != statistics_.cend(); ++it)
        if (const int c = model_->columnOf(it.key()); c >= 0) model_->setStatistic(c, static_cast<RunsTableModel::Statistic>(it.value()));
}

void RunsTablePage::setWorkspace(const QString& dir) {
    if (dir == workspace_) return;
    workspace_ = dir;
    model_->removeSource({});
    listWorkspace();
}

void RunsTablePage::listWorkspace() {
    if (workspace_.isEmpty()) return;
    if (listing_) {
        again_ = true;
        return;
    }
    listing_ = true;
    const quint64 job = ++job_;
    const QString root = workspace_;
    QMetaObject::invokeMethod(lister_, [l = lister_, job, root] { l->list(job, root); });
}

void RunsTablePage::setHostModel(HostListModel* hosts) {
    hosts_ = hosts;
    if (!hosts) return;
    for (RemoteHost* h : hosts->hosts()) addHost(h);
    connect(hosts, &HostListModel::hostAdded, this, [this](RemoteHost* h) { addHost(h); });
}

void RunsTablePage::addHost(RemoteHost* host) {
    const QString label = host->label();
    connect(host, &RemoteHost::recordsListed, this, [this, label](const RunRecordList& records) {
        model_->replaceSource(label, toVector(records));
        if (price_) model_->setHostPrice(label, price_(label));
        emit sourceListed(label, static_cast<int>(records.size()));
    });
    connect(host, &RemoteHost::recordsFailed, this, [this, label](const QString& m) { emit statusMessage(tr("Runs table, %1: %2").arg(label, m)); });
    // The table follows the host's listings (the sidebar's refresh, a run started there).
    connect(host, &RemoteHost::runsListed, this, [host] { host->listRecords(); });
    connect(host, &QObject::destroyed, this, [this, label] { model_->removeSource(label); });
    if (host->listed()) host->listRecords();
}

void RunsTablePage::refresh() {
    listWorkspace();
    if (hosts_)
        for (RemoteHost* h : hosts_->hosts()) h->listRecords();
}

void RunsTablePage::setPriceLookup(std::function<double(const QString&)> price) { price_ = std::move(price); }

}  // namespace streetgan::ui
