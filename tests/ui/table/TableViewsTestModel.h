// The Runs table as the table's views see it, for their tests: a QStandardItemModel whose cells
// carry RunsTableRoles (NumberRole on numeric cells, KeyRole on every cell of a row), built row by
// row from display texts and numbers.
#pragma once

#include <QStandardItemModel>
#include <QVariant>

#include <cmath>

#include "table/RunsTableRoles.h"

namespace streetgan::test {

/// A numeric cell: its text and its NumberRole.
struct Cell {
    QVariant value;  ///< a double (numeric), a QString (categorical) or invalid (missing)
};

inline Cell num(double v) { return {v}; }
inline Cell cat(const char* text) { return {QString(text)}; }
inline Cell none() { return {}; }

/// Appends a run keyed `key` named `name` (column 0) with `cells` in columns 1...
inline void addRun(QStandardItemModel& m, const QString& key, const QString& name, const QVector<Cell>& cells) {
    using namespace streetgan::ui;
    QList<QStandardItem*> items{new QStandardItem(name)};
    for (const Cell& c : cells) {
        auto* item = new QStandardItem;
        if (c.value.typeId() == QMetaType::Double) {
            item->setText(QString::number(c.value.toDouble()));
            item->setData(c.value.toDouble(), RunsTableRoles::NumberRole);
        } else {
            item->setText(c.value.toString());  // categorical, or "" for a missing value
        }
        items << item;
    }
    for (QStandardItem* item : items) item->setData(key, RunsTableRoles::KeyRole);
    m.appendRow(items);
}

/// Sets the number of cell (row, column), as the table's model would on a new value.
inline void setNumber(QStandardItemModel& m, int row, int column, double v) {
    QStandardItem* item = m.item(row, column);
    item->setText(QString::number(v));
    item->setData(v, streetgan::ui::RunsTableRoles::NumberRole);
}

}  // namespace streetgan::test
