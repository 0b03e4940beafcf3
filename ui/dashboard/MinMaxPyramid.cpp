#include "dashboard/MinMaxPyramid.h"

#include <limits>

namespace streetgan::ui {

void MinMaxPyramid::clear() {
    min_.clear();
    max_.clear();
    minFirst_.clear();
    n_ = 0;
}

void MinMaxPyramid::truncate(size_t n) {
    if (n >= n_) return;
    n_ = n;
    for (size_t level = 0; level < min_.size(); ++level) {
        const size_t blocks = n / (kBaseBlock << level);  // blocks wholly before row n
        if (min_[level].size() > blocks) {
            min_[level].resize(blocks);
            max_[level].resize(blocks);
            minFirst_[level].resize(blocks);
        }
    }
    while (!min_.empty() && min_.back().empty()) {
        min_.pop_back();
        max_.pop_back();
        minFirst_.pop_back();
    }
}

void MinMaxPyramid::update(const float* v, size_t n) {
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    n_ = n;
    // Level 0 from the raw rows, each level l + 1 from pairs of level l.
    for (size_t level = 0;; ++level) {
        const size_t block = kBaseBlock << level;
        const size_t blocks = n / block;
        if (blocks == 0) break;
        if (min_.size() <= level) {
            min_.emplace_back();
            max_.emplace_back();
            minFirst_.emplace_back();
        }
        auto& mn = min_[level];
        auto& mx = max_[level];
        auto& order = minFirst_[level];
        for (size_t j = mn.size(); j < blocks; ++j) {
            float lo = nan, hi = nan;
            bool minFirst = true;
            if (level == 0) {
                size_t atLo = 0, atHi = 0;
                for (size_t i = j * block; i < (j + 1) * block; ++i) {
                    if (v[i] != v[i]) continue;
                    if (!(lo <= v[i])) lo = v[i], atLo = i;
                    if (!(hi >= v[i])) hi = v[i], atHi = i;
                }
                minFirst = atLo <= atHi;
            } else {
                // Which half holds each extreme says their order; the same half: its order.
                const auto& pmn = min_[level - 1];
                const auto& pmx = max_[level - 1];
                size_t kLo = 2 * j, kHi = 2 * j;
                for (size_t k = 2 * j; k < 2 * j + 2; ++k) {
                    if (pmn[k] == pmn[k] && !(lo <= pmn[k])) lo = pmn[k], kLo = k;
                    if (pmx[k] == pmx[k] && !(hi >= pmx[k])) hi = pmx[k], kHi = k;
                }
                minFirst = kLo != kHi ? kLo < kHi : minFirst_[level - 1][kLo];
            }
            mn.push_back(lo);
            mx.push_back(hi);
            order.push_back(minFirst);
        }
    }
}

}  // namespace streetgan::ui
