// The Runs table's filter-and-sort proxy over a RunsTableModel. Filters: one ColumnFilter per
// column (a range, a list, a regular expression: set from the header's menu), and the toolbar's
// filter box, whose terms, separated by ';', are either "COLUMN = FILTER" ("lr = 1e-4..1e-3;
// preset = tiny-32,small-64") or text searched in the run's name and host. Sorting on several
// columns: sort keys in order of precedence (the header's shift-click adds one), each ascending or
// descending; numbers compare as numbers, text naturally ("run-9" before "run-10"), and a cell
// without a value goes last whatever the order; ties keep the model's order. The header shows
// each key's direction and rank ("lr ▲1"). GUI thread.
#pragma once

#include <QHash>
#include <QList>
#include <QSortFilterProxyModel>

#include "table/ColumnFilter.h"

namespace streetgan::ui {

class RunsTableModel;

class RunsTableProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    struct SortKey {
        int column = 0;  ///< a source column
        Qt::SortOrder order = Qt::AscendingOrder;
        bool operator==(const SortKey& o) const { return column == o.column && order == o.order; }
    };

    explicit RunsTableProxy(RunsTableModel* source, QObject* parent = nullptr);
    RunsTableModel* table() const { return table_; }

    /// The filter of source column `column` (empty text: none). Returns "" or why `text` is not a
    /// filter (then the column's filter is unchanged).
    QString setColumnFilter(int column, const QString& text);
    QString columnFilter(int column) const { return filters_.value(column).text(); }
    /// The filter box's text (terms separated by ';'). Returns "" or the first term's problem (an
    /// unknown column, a bad filter); the terms that are fine apply.
    QString setFilterText(const QString& text);
    void clearFilters();

    /// Sorts on `column` alone (`additive` false: a second click on the only key flips it) or adds
    /// it as the next key (`additive` true: a key already there flips its order).
    void addSortKey(int column, bool additive);
    void setSortKeys(const QList<SortKey>& keys);
    const QList<SortKey>& sortKeys() const { return keys_; }

    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// Text order with digit runs compared as numbers ("run-9" < "run-10"), case-insensitive. Our
    /// own: QCollator's numeric mode does nothing in the C locale (a test, a minimal system).
    static int naturalCompare(const QString& a, const QString& b);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    void applySort();
    RunsTableModel* table_;
    QHash<int, ColumnFilter> filters_;     ///< the header's, by source column
    QHash<int, ColumnFilter> boxFilters_;  ///< the filter box's "COLUMN = FILTER" terms
    QList<QRegularExpression> boxSearch_;  ///< the filter box's plain terms (name or host)
    QList<SortKey> keys_;
};

}  // namespace streetgan::ui
