#include "table/ColumnAxis.h"

#include <QAbstractItemModel>

#include <algorithm>

#include "table/RunsTableProxy.h"
#include "table/RunsTableRoles.h"

namespace streetgan::ui {
namespace {

// The scaled range [lo, hi] an axis spans: the values' range, widened around a single value
// (a column where every run has the same setting still gets a readable axis, its value mid-way).
void spanOf(double min, double max, bool log, double& lo, double& hi) {
    lo = log ? std::log10(min) : min;
    hi = log ? std::log10(max) : max;
    if (hi > lo) return;
    const double half = log ? 0.5 : (lo == 0 ? 1.0 : std::abs(lo) * 0.1);
    lo -= half;
    hi += half;
}

}  // namespace

void ColumnAxis::read(const QAbstractItemModel& model) {
    const int n = model.rowCount();
    title_ = column_ >= 0 ? model.headerData(column_, Qt::Horizontal).toString() : QString();
    values_.fill(kMissing, n);
    categories_.clear();
    kind_ = Kind::Empty;
    if (column_ < 0 || column_ >= model.columnCount()) return;
    QStringList texts(n);
    bool numeric = false;
    for (int r = 0; r < n; ++r) {
        const QModelIndex idx = model.index(r, column_);
        bool ok = false;
        const QVariant number = idx.data(RunsTableRoles::NumberRole);
        const double v = number.isValid() ? number.toDouble(&ok) : kMissing;
        if (ok && std::isfinite(v)) {
            values_[r] = v;
            numeric = true;
        }
        texts[r] = idx.data(Qt::DisplayRole).toString().trimmed();
    }
    if (!numeric) {
        // Categorical: each distinct text is a category, in natural order (numbers inside compare
        // as numbers), so an axis keeps its order whatever the table's sorting.
        for (const QString& t : texts)
            if (!t.isEmpty() && !categories_.contains(t)) categories_ << t;
        std::sort(categories_.begin(), categories_.end(), [](const QString& a, const QString& b) { return RunsTableProxy::naturalCompare(a, b) < 0; });
        for (int r = 0; r < n; ++r)
            if (!texts[r].isEmpty()) values_[r] = categories_.indexOf(texts[r]);
    }
    kind_ = numeric ? Kind::Numeric : categories_.isEmpty() ? Kind::Empty : Kind::Categorical;
    min_ = std::numeric_limits<double>::infinity();
    max_ = -min_;
    for (double v : values_)
        if (!std::isnan(v)) min_ = std::min(min_, v), max_ = std::max(max_, v);
    if (kind_ == Kind::Empty) min_ = max_ = 0;
    if (log_ && !logRefusal().isEmpty()) log_ = false;
}

void ColumnAxis::clear() {
    values_.clear();
    categories_.clear();
    kind_ = Kind::Empty;
    min_ = max_ = 0;
    log_ = false;
}

QString ColumnAxis::text(int row) const {
    const double v = value(row);
    if (std::isnan(v)) return QStringLiteral("n/a");
    return kind_ == Kind::Categorical ? categories_.value(static_cast<int>(v)) : format(v);
}

QString ColumnAxis::logRefusal() const {
    if (kind_ == Kind::Categorical) return QStringLiteral("'%1' is not numeric: a log scale needs numbers").arg(title_);
    if (kind_ != Kind::Numeric) return QStringLiteral("'%1' has no values yet").arg(title_);
    if (min_ > 0) return {};
    const auto bad = std::count_if(values_.begin(), values_.end(), [](double v) { return v <= 0; });
    return QStringLiteral("a log scale needs every value > 0: %1 run(s) have '%2' <= 0 (the least is %3)").arg(bad).arg(title_, format(min_));
}

bool ColumnAxis::setLog(bool on) {
    if (on && !logRefusal().isEmpty()) return false;
    log_ = on;
    return true;
}

double ColumnAxis::position(double v) const {
    if (std::isnan(v) || kind_ == Kind::Empty) return kMissing;
    double p = 0.5;
    if (kind_ == Kind::Categorical) {
        // Evenly spaced, half a step in from either end: one category sits mid-axis.
        p = (v + 0.5) / static_cast<double>(categories_.size());
    } else {
        double lo = 0, hi = 0;
        spanOf(min_, max_, log_, lo, hi);
        p = (scaled(v) - lo) / (hi - lo);
    }
    return flipped_ ? 1 - p : p;
}

double ColumnAxis::valueAt(double position) const {
    const double p = flipped_ ? 1 - position : position;
    if (kind_ == Kind::Categorical) return p * static_cast<double>(categories_.size()) - 0.5;
    if (kind_ != Kind::Numeric) return kMissing;
    double lo = 0, hi = 0;
    spanOf(min_, max_, log_, lo, hi);
    const double s = lo + p * (hi - lo);
    return log_ ? std::pow(10.0, s) : s;
}

QVector<ColumnAxis::Tick> ColumnAxis::ticks(int wanted) const {
    if (kind_ == Kind::Categorical) {
        QVector<Tick> out;
        for (int i = 0; i < categories_.size(); ++i) out.push_back({position(i), categories_[i]});
        return out;
    }
    if (kind_ != Kind::Numeric) return {};
    return log_ ? logTicks(wanted) : linearTicks(wanted);
}

QVector<ColumnAxis::Tick> ColumnAxis::linearTicks(int wanted) const {
    double lo = 0, hi = 0;
    spanOf(min_, max_, false, lo, hi);
    // A step of 1, 2 or 5 times a power of ten giving at most `wanted` ticks.
    const double raw = (hi - lo) / std::max(1, wanted);
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    double step = decade * 10;
    for (double m : {1.0, 2.0, 5.0})
        if (m * decade >= raw) {
            step = m * decade;
            break;
        }
    QVector<Tick> out;
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
        const double v = std::abs(k) < 0.5 ? 0.0 : k * step;  // no "-0"
        out.push_back({position(v), format(v)});
    }
    return out;
}

QVector<ColumnAxis::Tick> ColumnAxis::logTicks(int wanted) const {
    double lo = 0, hi = 0;
    spanOf(min_, max_, true, lo, hi);
    const double first = std::ceil(lo - 1e-9), last = std::floor(hi + 1e-9);
    // Every decade, or every second, third... when there are more decades than ticks wanted.
    const double every = std::max(1.0, std::ceil((last - first + 1) / std::max(1, wanted)));
    QVector<Tick> out;
    for (double d = first; d <= last; d += every) out.push_back({position(std::pow(10.0, d)), format(std::pow(10.0, d))});
    if (out.size() >= 3 || wanted < 3) return out;
    // Two decades or less: 2 and 5 times each power of ten as well, so the axis still reads.
    out.clear();
    for (double d = std::floor(lo); d <= hi; d += 1)
        for (double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10.0, d);
            if (std::log10(v) >= lo - 1e-9 && std::log10(v) <= hi + 1e-9) out.push_back({position(v), format(v)});
        }
    return out;
}

QString ColumnAxis::format(double v) {
    if (std::isnan(v)) return QStringLiteral("n/a");
    return QString::number(v, 'g', 3);
}

}  // namespace streetgan::ui
