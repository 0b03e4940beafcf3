// Level-of-detail for a long series (PlotJuggler/M4-style): min and max of blocks of 16, 32, 64,
// ... rows, grown incrementally as rows are appended. A plot asks for the rows of its visible x
// range as at most ~N points: the raw rows when there are few, else the min and max of each block
// of the coarsest level that still gives N points. So a replot draws a few thousand points
// whatever the series length, and nothing is copied per point. Not thread-safe (GUI thread).
#pragma once

#include <cstddef>
#include <vector>

namespace streetgan::ui {

class MinMaxPyramid {
public:
    static constexpr size_t kBaseBlock = 16;

    void clear();
    /// The series grew to values[0, n) (values before the previous size unchanged).
    void update(const float* values, size_t n);
    /// Forgets rows from `n` on (they changed: RunSeries rewrites its tail); update() again after.
    void truncate(size_t n);
    size_t size() const { return n_; }
    /// Calls out(row, value) for points that draw rows [r0, r1) with at most about `maxPoints`
    /// points, in row order. A block gives its two extremes in the order they came, the first at
    /// its first row and the other at its last: a fall shows as a fall (max, then min), never as
    /// a spike back up.
    template <class Out>
    void forEachPoint(const float* values, size_t r0, size_t r1, size_t maxPoints, Out&& out) const;

private:
    std::vector<std::vector<float>> min_, max_;  // level l: blocks of kBaseBlock << l rows
    std::vector<std::vector<bool>> minFirst_;    // the block's min comes before its max
    size_t n_ = 0;
};

template <class Out>
void MinMaxPyramid::forEachPoint(const float* v, size_t r0, size_t r1, size_t maxPoints, Out&& out) const {
    if (r1 > n_) r1 = n_;
    if (r0 >= r1) return;
    const size_t rows = r1 - r0;
    maxPoints = maxPoints < 4 ? 4 : maxPoints;
    if (rows <= maxPoints || min_.empty()) {
        for (size_t i = r0; i < r1; ++i)
            if (v[i] == v[i]) out(i, v[i]);
        return;
    }
    size_t level = 0;
    while (level + 1 < min_.size() && rows / (kBaseBlock << level) > maxPoints / 2) ++level;
    const size_t block = kBaseBlock << level;
    auto span = [&](size_t a, size_t b) {  // min/max of raw rows [a, b), in their order
        float lo = 0, hi = 0;
        size_t at_lo = 0, at_hi = 0;
        bool any = false;
        for (size_t i = a; i < b; ++i) {
            if (v[i] != v[i]) continue;
            if (!any || v[i] < lo) lo = v[i], at_lo = i;
            if (!any || v[i] > hi) hi = v[i], at_hi = i;
            any = true;
        }
        if (any) {
            out(a, at_lo <= at_hi ? lo : hi);
            out(b - 1, at_lo <= at_hi ? hi : lo);
        }
    };
    size_t first = (r0 + block - 1) / block, last = r1 / block;  // full blocks [first, last)
    if (last > min_[level].size()) last = min_[level].size();
    if (first >= last) {
        span(r0, r1);
        return;
    }
    if (r0 < first * block) span(r0, first * block);
    for (size_t j = first; j < last; ++j) {
        const float lo = min_[level][j], hi = max_[level][j];
        if (lo != lo) continue;  // a block of NaNs only
        const bool minFirst = minFirst_[level][j];
        out(j * block, minFirst ? lo : hi);
        out((j + 1) * block - 1, minFirst ? hi : lo);
    }
    if (last * block < r1) span(last * block, r1);
}

}  // namespace streetgan::ui
