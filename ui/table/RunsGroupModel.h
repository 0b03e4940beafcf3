// The Runs table grouped by one column (a setting such as "lr" or "preset"): one row per value of
// that column among the runs the proxy shows (its filters apply), with the number of runs, and for
// every other column the group's mean, standard deviation, minimum and maximum (the spread over
// seeds of one configuration). A numeric cell shows "mean ± std" (its NumberRole is the mean, the
// tooltip has all four and n); a text column shows its value when the group agrees, else how many
// values it has. The standard deviation is the sample one (n − 1: what a spread over a few seeds
// is reported as), 0 for a group of one. A tree: each group row's children are its runs, in the
// proxy's order, each with its own cells (the table model's) and KeyRole, so a group opens onto the
// seeds behind its mean. Rebuilt (a model reset) when the proxy changes, at most once per event-loop
// pass. GUI thread.
#pragma once

#include <QAbstractItemModel>
#include <QList>
#include <QStringList>

namespace streetgan::ui {

class RunsTableProxy;

class RunsGroupModel : public QAbstractItemModel {
    Q_OBJECT
public:
    struct Stats {
        int n = 0;  ///< runs of the group with a number in this column
        double mean = 0, std = 0, min = 0, max = 0;
    };

    explicit RunsGroupModel(RunsTableProxy* runs, QObject* parent = nullptr);
    /// Groups by the table model's column `column` (-1: no grouping, no rows).
    void setGroupColumn(int column);
    int groupColumn() const { return group_; }
    /// Rebuilds now (otherwise it happens on the next event-loop pass after a change).
    void rebuild();

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// The table model's row of the run at `index` (a group's child), -1 for a group row.
    int tableRow(const QModelIndex& index) const;
    /// Row `row`'s group value (the grouping column's text; "" for runs without it).
    QString groupValue(int row) const { return groups_[row].value; }
    int runCount(int row) const { return static_cast<int>(groups_[row].runs.size()); }
    /// The table model's column that `column` of this model aggregates (-1 for the first two).
    int tableColumn(int column) const { return column >= 2 ? columns_.value(column - 2, -1) : -1; }
    Stats stats(int row, int column) const;

private:
    void schedule();
    QVariant groupData(int group, int column, int role) const;
    QVariant runData(int row, int column, int role) const;
    struct Group {
        QString value;
        QList<int> runs;           ///< table model rows
        QList<Stats> stats;        ///< per aggregated column
        QStringList commonText;    ///< per aggregated column: the one text, or "" when they differ
        QList<int> distinctTexts;  ///< per aggregated column
    };
    RunsTableProxy* runs_;
    int group_ = -1;
    QList<int> columns_;  ///< the table model's columns aggregated, in order
    QList<Group> groups_;
    bool scheduled_ = false;
};

}  // namespace streetgan::ui
