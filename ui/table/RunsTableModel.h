// The Runs table's model (issue 43): one row per run (a RunRecord: local, remote or TensorBoard),
// keyed by RunPalette::key(host label, path) and updated in place when the run is listed again.
// Columns: the fixed ones (run, host, state, steps, images, wall time, img/s, cost, best
// checkpoint), then one per setting key seen in any run, then one per scalar or quality figure
// seen in any run. An outcome column shows one statistic of its scalar (last, min, max, or the
// value at the run's best checkpoint), chosen per column. DisplayRole is formatted text,
// RunsTableRoles::NumberRole the number (sorting, filters, plots), KeyRole the run's key and
// ProblemsRole / ToolTipRole what could not be read of the run (a problem row is kept, never
// dropped). Columns are only ever added (a setting no run has any more stays, blank): the view's
// hidden, moved and pinned columns are remembered by Column::id(), never by position.
// GUI thread only.
#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QString>

#include <vector>

#include "base/follow/RunRecord.h"

namespace streetgan::ui {

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Fixed { Run, Host, State, Steps, Images, WallTime, ImagesPerSecond, Cost, BestCheckpoint, FixedCount };
    enum class Kind { Fixed, Setting, Outcome };
    enum class Statistic { Last, Min, Max, AtBest };

    struct Column {
        Kind kind = Kind::Fixed;
        int fixed = Run;  ///< Fixed columns: which one
        QString name;     ///< the setting key or scalar name ("" for fixed columns)
        Statistic statistic = Statistic::Last;
        /// What the layout is remembered by: "run", "host", ..., "setting:lr", "scalar:swd".
        QString id() const;
    };

    explicit RunsTableModel(QObject* parent = nullptr);

    /// Adds or updates (in place, by key) the runs of one source: `hostLabel` empty for this
    /// computer's workspace, else the remote host's label. Columns for new settings and scalars
    /// are added.
    void upsert(const QString& hostLabel, const std::vector<RunRecord>& records);
    /// upsert(), then removes the rows of `hostLabel` whose runs are not in `records` (the
    /// source's whole listing: a deleted run goes).
    void replaceSource(const QString& hostLabel, const std::vector<RunRecord>& records);
    /// Removes every row of `hostLabel` (a host removed from the app).
    void removeSource(const QString& hostLabel);
    /// Dollars per hour the runs of `hostLabel` are billed at (< 0: unknown, the cost stays blank).
    /// Local runs have no cost: this computer is not billed by the hour.
    void setHostPrice(const QString& hostLabel, double perHour);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const Column& column(int c) const { return columns_[c]; }
    /// The column with `id` (Column::id()), -1 when none.
    int columnOf(const QString& id) const { return columnIds_.value(id, -1); }
    /// The column shown with the header `title` or the id `id`, -1 when none (the filter box's
    /// "lr = ..." terms).
    int columnNamed(const QString& titleOrId) const;
    void setStatistic(int column, Statistic statistic);
    static QString statisticName(Statistic s);

    const RunRecord& record(int row) const { return rows_[row].record; }
    QString key(int row) const { return rows_[row].key; }
    QString hostLabel(int row) const { return rows_[row].hostLabel; }
    int rowOf(const QString& key) const { return rowIds_.value(key, -1); }
    /// A cell's number (NaN when it has none: text, missing).
    double number(int row, int column) const;
    /// A cell's text as shown.
    QString text(int row, int column) const;
    /// The setting columns whose value is the same in each of `rows` (a setting missing from a run
    /// differs from any value): what "differences only" hides. Fewer than two rows: every one.
    QList<int> uniformSettingColumns(const QList<int>& rows) const;
    /// The run's best checkpoint as a path: absolute for a local run, the remote path on its host
    /// for a remote one; "" when it has none.
    QString bestCheckpointPath(int row) const;

    /// The text of a setting's JSON value as the table shows it ("0.0002", "tiny-32", "[0.5,0.999]").
    static QString settingText(const nlohmann::json& value);
    /// A wall time as "2 h 05 min", "3 min 20 s", "42 s".
    static QString durationText(double seconds);

private:
    /// Whether a run's record `b`, listed again, shows the same as `a` (a cheap comparison).
    static bool unchanged(const RunRecord& a, const RunRecord& b);
    struct Row {
        RunRecord record;
        QString hostLabel, key;
    };
    void addColumns(const std::vector<RunRecord>& records);
    double fixedNumber(const Row& r, int fixed) const;
    QString fixedText(const Row& r, int fixed) const;
    double outcomeNumber(const Row& r, const Column& c) const;
    QString toolTip(const Row& r, const Column& c) const;
    QList<Column> columns_;
    QHash<QString, int> columnIds_;
    int settingEnd_ = FixedCount;  ///< the first outcome column (settings are [FixedCount, settingEnd_))
    QList<Row> rows_;
    QHash<QString, int> rowIds_;
    QHash<QString, double> prices_;
};

}  // namespace streetgan::ui
