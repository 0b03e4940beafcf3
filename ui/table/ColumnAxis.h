// One column of the Runs table read as an axis, shared by the table's views (the parallel
// coordinates' axes, the scatter's x and y, the colour scale): each row's value (a NumberRole
// number, or for a categorical column the index of its DisplayRole text among the column's
// categories, sorted naturally as the table sorts: "tiny-32" before "tiny-128"), the range, a log or linear scale,
// flip, the map from value to a position in [0, 1] along the axis and back, and ticks with
// readable labels (decades on a log scale). The one place that decides whether a log scale may be
// used (every value > 0) and how a categorical column is laid out (evenly spaced categories).
// A value object; read() takes a snapshot of the model, so the axis never reads the model later.
// GUI thread (the model's).
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include <cmath>
#include <limits>

class QAbstractItemModel;

namespace streetgan::ui {

class ColumnAxis {
public:
    enum class Kind { Empty, Numeric, Categorical };
    struct Tick {
        double position;  ///< in [0, 1] along the axis
        QString label;
    };
    static constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

    ColumnAxis() = default;
    explicit ColumnAxis(int column) : column_(column) {}

    /// Reads the column from every top-level row of `model` (its header text too). A column with
    /// any finite NumberRole is numeric (its other cells are missing values); else one with any
    /// display text is categorical; else empty. A log scale that the new values do not allow is
    /// turned off (logRefusal() says why).
    void read(const QAbstractItemModel& model);
    /// Forgets the values (no model): an empty axis, its flip kept, its log scale off.
    void clear();

    int column() const { return column_; }
    QString title() const { return title_; }
    Kind kind() const { return kind_; }
    int rows() const { return static_cast<int>(values_.size()); }
    /// The row's value (a category's index on a categorical axis); NaN when missing.
    double value(int row) const { return row >= 0 && row < rows() ? values_[row] : kMissing; }
    bool hasValue(int row) const { return !std::isnan(value(row)); }
    /// How the row's value reads ("0.0002", "tiny-32", "n/a").
    QString text(int row) const;
    /// The range of the present values (0, 0 when there are none).
    double min() const { return min_; }
    double max() const { return max_; }
    const QStringList& categories() const { return categories_; }

    /// Why a log scale cannot be used now ("" when it can): not numeric, or a value <= 0.
    QString logRefusal() const;
    /// Turns the log scale on or off; refuses (false, nothing changes) when logRefusal() is not empty.
    bool setLog(bool on);
    bool isLog() const { return log_; }
    void setFlipped(bool on) { flipped_ = on; }
    bool isFlipped() const { return flipped_; }

    /// Where `value` sits along the axis: 0 at the low end (1 when flipped); NaN for NaN.
    double position(double value) const;
    double rowPosition(int row) const { return position(value(row)); }
    /// The value at `position` (the inverse of position()).
    double valueAt(double position) const;
    /// About `wanted` ticks on round numbers inside the range (decades on a log scale, with 2 and
    /// 5 times each when that makes fewer than 3; each category on a categorical axis).
    QVector<Tick> ticks(int wanted) const;

    /// A number as the axes write it: 3 significant digits, no trailing zeros ("0.0002", "1.5e+06").
    static QString format(double v);

private:
    /// The scale's coordinate of a value (log10 on a log scale).
    double scaled(double v) const { return log_ ? std::log10(v) : v; }
    QVector<Tick> linearTicks(int wanted) const;
    QVector<Tick> logTicks(int wanted) const;

    int column_ = -1;
    QString title_;
    Kind kind_ = Kind::Empty;
    QVector<double> values_;
    QStringList categories_;
    double min_ = 0, max_ = 0;
    bool log_ = false, flipped_ = false;
};

}  // namespace streetgan::ui
