#include "table/RunsGroupModel.h"

#include <QMap>
#include <QSet>
#include <QTimer>

#include <algorithm>
#include <cmath>

#include "table/RunsTableModel.h"
#include "table/RunsTableProxy.h"
#include "table/RunsTableRoles.h"

namespace streetgan::ui {

namespace {

RunsGroupModel::Stats statsOf(const QList<double>& values) {
    RunsGroupModel::Stats s;
    s.n = static_cast<int>(values.size());
    if (s.n == 0) return s;
    s.min = *std::min_element(values.begin(), values.end());
    s.max = *std::max_element(values.begin(), values.end());
    double sum = 0;
    for (double v : values) sum += v;
    s.mean = sum / s.n;
    double sq = 0;
    for (double v : values) sq += (v - s.mean) * (v - s.mean);
    s.std = s.n > 1 ? std::sqrt(sq / (s.n - 1)) : 0;
    return s;
}

QString num(double v) { return QString::number(v, 'g', 4); }

}  // namespace

RunsGroupModel::RunsGroupModel(RunsTableProxy* runs, QObject* parent) : QAbstractItemModel(parent), runs_(runs) {
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved, &QAbstractItemModel::columnsInserted})
        connect(runs, signal, this, &RunsGroupModel::schedule);
    connect(runs, &QAbstractItemModel::dataChanged, this, &RunsGroupModel::schedule);
    connect(runs, &QAbstractItemModel::modelReset, this, &RunsGroupModel::schedule);
    connect(runs, &QAbstractItemModel::layoutChanged, this, &RunsGroupModel::schedule);
    connect(runs, &QAbstractItemModel::headerDataChanged, this, &RunsGroupModel::schedule);
}

void RunsGroupModel::setGroupColumn(int column) {
    group_ = column;
    rebuild();
}

void RunsGroupModel::schedule() {
    if (scheduled_ || group_ < 0) return;
    scheduled_ = true;
    QTimer::singleShot(0, this, [this] {
        if (scheduled_) rebuild();
    });
}

void RunsGroupModel::rebuild() {
    scheduled_ = false;
    const RunsTableModel* t = runs_->table();
    QList<int> columns;
    QMap<QString, QList<int>> byValue;
    if (group_ >= 0 && group_ < t->columnCount()) {
        for (int c = 0; c < t->columnCount(); ++c)
            if (c != group_ && c != RunsTableModel::Run) columns << c;
        for (int r = 0; r < runs_->rowCount(); ++r) {
            const int row = runs_->mapToSource(runs_->index(r, 0)).row();
            byValue[t->text(row, group_)] << row;
        }
    }
    QStringList values = byValue.keys();
    std::sort(values.begin(), values.end(), [](const QString& a, const QString& b) { return RunsTableProxy::naturalCompare(a, b) < 0; });
    QList<Group> groups;
    for (const QString& v : values) {
        Group g{v, byValue.value(v), {}, {}, {}};
        for (int c : columns) {
            QList<double> numbers;
            QSet<QString> texts;
            for (int row : g.runs) {
                if (const double x = t->number(row, c); std::isfinite(x)) numbers << x;
                texts.insert(t->text(row, c));
            }
            g.stats << statsOf(numbers);
            g.commonText << (texts.size() == 1 ? *texts.cbegin() : QString());
            g.distinctTexts << static_cast<int>(texts.size());
        }
        groups << g;
    }
    beginResetModel();
    columns_ = columns;
    groups_ = groups;
    endResetModel();
}

// A group row's internal id is 0; a run's is its group's row + 1.
QModelIndex RunsGroupModel::index(int row, int column, const QModelIndex& parent) const {
    if (column < 0 || column >= columnCount() || row < 0) return {};
    if (!parent.isValid()) return row < groups_.size() ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0 || parent.row() >= groups_.size() || row >= groups_[parent.row()].runs.size()) return {};
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex RunsGroupModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == 0) return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int RunsGroupModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return static_cast<int>(groups_.size());
    if (parent.internalId() != 0 || parent.column() != 0 || parent.row() >= groups_.size()) return 0;
    return static_cast<int>(groups_[parent.row()].runs.size());
}

int RunsGroupModel::columnCount(const QModelIndex&) const { return 2 + static_cast<int>(columns_.size()); }

int RunsGroupModel::tableRow(const QModelIndex& index) const {
    if (!index.isValid() || index.internalId() == 0) return -1;
    const int g = static_cast<int>(index.internalId() - 1);
    return g < groups_.size() && index.row() < groups_[g].runs.size() ? groups_[g].runs[index.row()] : -1;
}

RunsGroupModel::Stats RunsGroupModel::stats(int row, int column) const {
    if (row < 0 || row >= groups_.size() || column < 2 || column - 2 >= columns_.size()) return {};
    return groups_[row].stats[column - 2];
}

QVariant RunsGroupModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.column() >= columnCount()) return {};
    if (index.internalId() != 0) return runData(tableRow(index), index.column(), role);
    return index.row() < groups_.size() ? groupData(index.row(), index.column(), role) : QVariant();
}

QVariant RunsGroupModel::runData(int row, int c, int role) const {
    const RunsTableModel* t = runs_->table();
    if (row < 0 || row >= t->rowCount()) return {};
    if (role == RunsTableRoles::KeyRole) return t->key(row);
    if (c == 1) return {};
    return t->index(row, c == 0 ? int(RunsTableModel::Run) : columns_[c - 2]).data(role);
}

QVariant RunsGroupModel::groupData(int group, int c, int role) const {
    const Group& g = groups_[group];
    if (c < 2) {
        if (role == Qt::DisplayRole) return c == 0 ? (g.value.isEmpty() ? tr("(none)") : g.value) : QVariant(static_cast<int>(g.runs.size()));
        if (role == RunsTableRoles::NumberRole && c == 1) return static_cast<double>(g.runs.size());
        return {};
    }
    const Stats& s = g.stats[c - 2];
    const bool numeric = s.n > 0 && s.n == g.runs.size();  // every run of the group has a number here
    switch (role) {
        case Qt::DisplayRole:
            if (numeric) return s.n > 1 ? tr("%1 ± %2").arg(num(s.mean), num(s.std)) : num(s.mean);
            return g.distinctTexts[c - 2] > 1 ? tr("%n value(s)", nullptr, g.distinctTexts[c - 2]) : g.commonText[c - 2];
        case RunsTableRoles::NumberRole:
            return s.n > 0 ? QVariant(s.mean) : QVariant();
        case Qt::ToolTipRole:
            if (s.n == 0) return {};
            return tr("mean %1, std %2, min %3, max %4 over %n run(s)", nullptr, s.n).arg(num(s.mean), num(s.std), num(s.min), num(s.max));
        case Qt::TextAlignmentRole:
            return numeric ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
        default:
            return {};
    }
}

QVariant RunsGroupModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return QAbstractItemModel::headerData(section, orientation, role);
    const RunsTableModel* t = runs_->table();
    if (section == 0) return group_ >= 0 && group_ < t->columnCount() ? t->headerData(group_, Qt::Horizontal) : QVariant(tr("Group"));
    if (section == 1) return tr("Runs");
    return t->headerData(columns_[section - 2], Qt::Horizontal);
}

}  // namespace streetgan::ui
