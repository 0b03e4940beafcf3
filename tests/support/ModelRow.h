// A model's row read as a view shows it, for tests of item views (the runs sidebar): column texts,
// roles, tooltips, the check box (set through the model's setData, as a click does), and whether a
// filter proxy keeps it. Holds a QPersistentModelIndex, so it follows the row as the model updates.
#pragma once

#include <QAbstractProxyModel>
#include <QIcon>
#include <QPersistentModelIndex>

namespace streetgan::test {

struct ModelRow {
    QPersistentModelIndex index;

    bool isValid() const { return index.isValid(); }
    QModelIndex at(int column) const { return index.sibling(index.row(), column); }
    QString text(int column) const { return at(column).data().toString(); }
    QVariant data(int column, int role) const { return at(column).data(role); }
    QString toolTip(int column) const { return data(column, Qt::ToolTipRole).toString(); }
    QIcon icon() const { return data(0, Qt::DecorationRole).value<QIcon>(); }
    Qt::ItemFlags flags() const { return at(0).flags(); }
    Qt::CheckState checkState() const { return data(0, Qt::CheckStateRole).value<Qt::CheckState>(); }
    bool setCheckState(Qt::CheckState state) const { return const_cast<QAbstractItemModel*>(index.model())->setData(at(0), state, Qt::CheckStateRole); }
    ModelRow parent() const { return {index.parent()}; }
    /// True when `proxy` leaves the row out (itself, or its parent with it).
    bool isHiddenBy(const QAbstractProxyModel* proxy) const { return !proxy->mapFromSource(at(0)).isValid(); }
};

}  // namespace streetgan::test
