#include "runs/RunsTreeModel.h"

#include <QGuiApplication>
#include <QHash>
#include <QPainter>
#include <QPalette>
#include <QPixmap>

#include "runs/RunItemDelegate.h"
#include "runs/RunPalette.h"

namespace streetgan::ui {

namespace {
QIcon swatch(const QColor& c) {
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    if (c.isValid()) {
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setBrush(c);
        p.setPen(c.darker(130));
        p.drawRoundedRect(QRectF(1.5, 1.5, 11, 11), 3, 3);
    }
    return QIcon(pm);
}
}  // namespace

RunsTreeModel::RunsTreeModel(QObject* parent) : QAbstractItemModel(parent) { groups_.append(Group{}); }

bool RunsTreeModel::addHost(RemoteHost* host) {
    if (!host || hostGroup(host).isValid()) return false;
    const int row = static_cast<int>(groups_.size());
    beginInsertRows({}, row, row);
    Group g;
    g.id = nextId_++;
    g.host = host;
    groups_.append(g);
    endInsertRows();
    return true;
}

void RunsTreeModel::removeHost(RemoteHost* host) {
    const QModelIndex g = hostGroup(host);
    if (!g.isValid()) return;
    beginRemoveRows({}, g.row(), g.row());
    groups_.remove(g.row());
    endRemoveRows();
}

int RunsTreeModel::groupRow(quintptr id) const {
    for (int g = 0; g < groups_.size(); ++g)
        if (groups_[g].id == id) return g;
    return -1;
}

QModelIndex RunsTreeModel::openedGroup() const {
    // Row 1 when shown: the local runs together, before the hosts.
    return groups_.size() > 1 && groups_[1].opened ? createIndex(1, 0, kGroupId) : QModelIndex();
}

bool RunsTreeModel::isOpened(const QModelIndex& index) const {
    if (!index.isValid()) return false;
    const int g = isRun(index) ? groupRow(index.internalId()) : index.row();
    return g >= 0 && groups_[g].opened;
}

void RunsTreeModel::setOpenedRuns(const QString& label, const QString& tooltip, const QVector<RunRow>& rows,
                                  const std::function<bool(const QString&)>& checked) {
    QModelIndex group = openedGroup();
    if (rows.isEmpty()) {
        if (!group.isValid()) return;
        beginRemoveRows({}, 1, 1);
        groups_.remove(1);
        endRemoveRows();
        return;
    }
    if (!group.isValid()) {
        beginInsertRows({}, 1, 1);
        Group g;
        g.id = nextId_++;
        g.opened = true;
        g.label = label;
        g.tooltip = tooltip;
        groups_.insert(1, g);
        endInsertRows();
        group = openedGroup();
    }
    setGroupText(group, label, tooltip);
    setRuns(group, rows, checked);
}

QModelIndex RunsTreeModel::hostGroup(RemoteHost* host) const {
    for (int g = 1; host && g < groups_.size(); ++g)
        if (groups_[g].host == host) return createIndex(g, 0, kGroupId);
    return {};
}

RemoteHost* RunsTreeModel::hostOf(const QModelIndex& index) const {
    if (!index.isValid()) return nullptr;
    return groups_[isRun(index) ? groupRow(index.internalId()) : index.row()].host;
}

void RunsTreeModel::setGroupText(const QModelIndex& group, const QString& label, const QString& tooltip, const QString& state, const QString& stateTooltip) {
    if (!group.isValid() || isRun(group)) return;
    Group& g = groups_[group.row()];
    g.label = label;
    g.tooltip = tooltip;
    g.state = state;
    g.stateTooltip = stateTooltip;
    emit dataChanged(index(group.row(), 0), index(group.row(), 1));
}

void RunsTreeModel::setRuns(const QModelIndex& group, const QVector<RunRow>& rows, const std::function<bool(const QString&)>& checked) {
    if (!group.isValid() || isRun(group)) return;
    const int g = group.row();
    QHash<QString, int> wanted;  // path -> its place in `rows`
    for (int i = 0; i < rows.size(); ++i) wanted.insert(rows[i].entry.path, i);
    // Remove the runs no longer listed (from the end, one row at a time: few change at once).
    for (int r = static_cast<int>(groups_[g].runs.size()) - 1; r >= 0; --r) {
        if (wanted.contains(groups_[g].runs[r].row.entry.path)) continue;
        beginRemoveRows(group, r, r);
        groups_[g].runs.remove(r);
        endRemoveRows();
    }
    // Update the others in place, and add the new ones at the end.
    QHash<QString, int> at;
    for (int r = 0; r < groups_[g].runs.size(); ++r) at.insert(groups_[g].runs[r].row.entry.path, r);
    for (const RunRow& row : rows) {
        if (const auto it = at.constFind(row.entry.path); it != at.constEnd()) {
            groups_[g].runs[*it].row = row;
            runChanged(index(*it, 0, group));
            continue;
        }
        const int r = static_cast<int>(groups_[g].runs.size());
        beginInsertRows(group, r, r);
        Run run;
        run.row = row;
        run.checked = checked && checked(row.key);
        run.swatch = swatch(run.checked ? RunPalette::colour(row.key) : QColor());
        groups_[g].runs.append(run);
        endInsertRows();
    }
}

void RunsTreeModel::updateRun(const QModelIndex& run, const RunRow& row) {
    if (!isRun(run)) return;
    groupOf(run).runs[run.row()].row = row;
    runChanged(run);
}

const RunsTreeModel::RunRow& RunsTreeModel::run(const QModelIndex& run) const { return groupOf(run).runs[run.row()].row; }

QModelIndex RunsTreeModel::runIndex(const QString& key) const {
    for (int g = 0; !key.isEmpty() && g < groups_.size(); ++g)
        for (int r = 0; r < groups_[g].runs.size(); ++r)
            if (groups_[g].runs[r].row.key == key) return createIndex(r, 0, groups_[g].id);
    return {};
}

void RunsTreeModel::setChecked(const QModelIndex& run, bool on) {
    if (!isRun(run)) return;
    Run& r = groupOf(run).runs[run.row()];
    r.checked = on;
    r.swatch = swatch(on ? RunPalette::colour(r.row.key) : QColor());
    const QModelIndex first = run.siblingAtColumn(0);
    emit dataChanged(first, first, {Qt::CheckStateRole, Qt::DecorationRole});
}

void RunsTreeModel::runChanged(const QModelIndex& run) { emit dataChanged(run.siblingAtColumn(0), run.siblingAtColumn(1)); }

QModelIndex RunsTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (column < 0 || column > 1 || row < 0) return {};
    if (!parent.isValid()) return row < groups_.size() ? createIndex(row, column, kGroupId) : QModelIndex();
    if (isRun(parent) || parent.column() != 0) return {};
    return row < groups_[parent.row()].runs.size() ? createIndex(row, column, groups_[parent.row()].id) : QModelIndex();
}

QModelIndex RunsTreeModel::parent(const QModelIndex& child) const {
    if (!isRun(child)) return {};
    return createIndex(groupRow(child.internalId()), 0, kGroupId);
}

int RunsTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return static_cast<int>(groups_.size());
    if (isRun(parent) || parent.column() != 0) return 0;
    return static_cast<int>(groups_[parent.row()].runs.size());
}

int RunsTreeModel::columnCount(const QModelIndex&) const { return 2; }

QVariant RunsTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const int column = index.column();
    if (!isRun(index)) {
        const Group& g = groups_[index.row()];
        if (role == Qt::DisplayRole) return column == 0 ? g.label : g.state;
        if (role == Qt::ToolTipRole) return column == 0 ? g.tooltip : g.stateTooltip;
        return {};
    }
    const Run& r = groupOf(index).runs[index.row()];
    switch (role) {
        case Qt::DisplayRole:
            return column == 0 ? r.row.entry.name : r.row.stateText;
        case Qt::ToolTipRole:
            return r.row.tooltip;
        case Qt::ForegroundRole:
            return r.row.missing ? QVariant(QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text)) : QVariant();
        case Qt::CheckStateRole:
            // A missing run has nothing to plot: no box.
            return column == 0 && !r.row.missing ? QVariant(r.checked ? Qt::Checked : Qt::Unchecked) : QVariant();
        case Qt::DecorationRole:
            return column == 0 ? QVariant(r.swatch) : QVariant();
        case RunItemDelegate::kSecondLineRole:
            return column == 0 ? QVariant(r.row.hostText) : QVariant();
        case RunItemDelegate::kStateRole:
            return column == 1 ? QVariant(r.row.state) : QVariant();
        case RunItemDelegate::kDetailRole:
            return column == 1 ? QVariant(r.row.detail) : QVariant();
        case PathRole:
            return r.row.entry.path;
        case KeyRole:
            return r.row.key;
        case EntryRole:
            return QVariant::fromValue(r.row.entry);
        default:
            return {};
    }
}

bool RunsTreeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::CheckStateRole || !isRun(index) || index.column() != 0 || run(index).missing) return false;
    const bool on = value.value<Qt::CheckState>() == Qt::Checked;
    if (groupOf(index).runs[index.row()].checked == on) return true;
    setChecked(index, on);
    emit runChecked(run(index).key, on);
    return true;
}

Qt::ItemFlags RunsTreeModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (isRun(index)) f |= Qt::ItemNeverHasChildren;
    if (isRun(index) && index.column() == 0 && !run(index).missing) f |= Qt::ItemIsUserCheckable;
    return f;
}

}  // namespace streetgan::ui
