#include "events/RunSeries.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "base/run/Events.h"

namespace streetgan::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();

// NaN-aware folds (NaN: the metric was missing), the same rule as MinMaxPyramid's.
inline void foldMin(float& cur, float x) {
    if (x == x && !(cur <= x)) cur = x;
}
inline void foldMax(float& cur, float x) {
    if (x == x && !(cur >= x)) cur = x;
}

}  // namespace

RunSeries::RunSeries() : lastMetrics_{kNaN, kNaN, kNaN, kNaN, 0} { lastFinite_.fill(kNaN); }

void RunSeries::Bucket::add(double step, double epoch, double t, const float* l, const float* h, int64_t events) {
    if (count == 0) {
        step0 = step, epoch0 = epoch, t0 = t;
        lo.fill(kNaNf);
        hi.fill(kNaNf);
    }
    step1 = step, epoch1 = epoch, t1 = t;
    for (int k = 0; k < kMetricCount; ++k) {
        foldMin(lo[static_cast<size_t>(k)], l[k]);
        foldMax(hi[static_cast<size_t>(k)], h[k]);
    }
    count += events;
}

void RunSeries::pushRow(double step, double epoch, double t, const float* v) {
    step_.push_back(step);
    epochX_.push_back(epoch);
    t_.push_back(t);
    for (int k = 0; k < kMetricCount; ++k) values_[k].push_back(v[k]);
}

void RunSeries::pushBucket(const Bucket& b) {
    if (b.count == 0) return;
    pushRow(b.step0, b.epoch0, b.t0, b.lo.data());
    if (b.count > 1) pushRow(b.step1, b.epoch1, b.t1, b.hi.data());
}

void RunSeries::truncateRows(size_t n) {
    if (n >= rows()) return;
    step_.resize(n);
    epochX_.resize(n);
    t_.resize(n);
    for (auto& v : values_) v.resize(n);
    changedFrom_ = std::min(changedFrom_, n);
}

void RunSeries::addEvent(const Event& e) {
    ++events_;
    if (events_ > 1) {
        if (bucket_ == 1) {
            // Not downsampling yet: the previous last row is a bucket of its own, unchanged.
            stable_ = rows();
        } else {
            // The previous last event joins the partial bucket; its rows are rewritten.
            pending_.add(last_.step, last_.epoch, last_.t, last_.v.data(), last_.v.data(), 1);
            truncateRows(stable_);
            pushBucket(pending_);
            if (pending_.count == bucket_) {
                stable_ = rows();
                pending_ = Bucket{};
            }
        }
    }
    last_ = e;
    pushRow(e.step, e.epoch, e.t, e.v.data());
    // Room for the partial bucket's two rows and the last row.
    if (stable_ + 3 > kMaxRows) compact();
}

// Merges pairs of buckets over the stable rows after the first (which stays exact). Called right
// after a bucket completed, so the partial bucket is empty; an odd bucket left over starts it.
void RunSeries::compact() {
    truncateRows(stable_);
    const size_t group = bucket_ == 1 ? 2 : 4;  // rows in two old buckets
    std::array<float, kMetricCount> lo{}, hi{}, row{};
    size_t w = 1, r = 1;
    for (; r + group <= stable_; r += group) {
        lo.fill(kNaNf);
        hi.fill(kNaNf);
        for (size_t i = r; i < r + group; ++i)
            for (size_t k = 0; k < static_cast<size_t>(kMetricCount); ++k) {
                foldMin(lo[k], values_[k][i]);
                foldMax(hi[k], values_[k][i]);
            }
        const size_t last = r + group - 1;
        // Written in place: rows w, w + 1 are at or before row r, already read.
        step_[w] = step_[r], epochX_[w] = epochX_[r], t_[w] = t_[r];
        step_[w + 1] = step_[last], epochX_[w + 1] = epochX_[last], t_[w + 1] = t_[last];
        for (size_t k = 0; k < static_cast<size_t>(kMetricCount); ++k) {
            values_[k][w] = lo[k];
            values_[k][w + 1] = hi[k];
        }
        w += 2;
    }
    Bucket left;
    for (size_t i = r; i < stable_; ++i) {
        for (size_t k = 0; k < static_cast<size_t>(kMetricCount); ++k) row[k] = values_[k][i];
        left.add(step_[i], epochX_[i], t_[i], row.data(), row.data(), 1);
    }
    if (r < stable_) left.count = bucket_;  // its rows' events: one old bucket
    bucket_ *= 2;
    stable_ = w;
    truncateRows(w);
    changedFrom_ = std::min<size_t>(changedFrom_, 1);
    pending_ = left;
    pushBucket(pending_);
    pushRow(last_.step, last_.epoch, last_.t, last_.v.data());
}

size_t RunSeries::append(EventBatch&& b) {
    changedFrom_ = rows();
    if (t0_ == 0 && b.firstT != 0) t0_ = b.firstT;
    if (b.stepsPerEpoch > 0) stepsPerEpoch_ = b.stepsPerEpoch;
    const auto& m = b.metrics;
    const size_t n = m.size();
    // A checkpoint's losses: the last metrics event at or before its step, exact (rows are in
    // step order, as the catalog's search always assumed), from this batch or an earlier one.
    for (const auto& ref : b.checkpoints) {
        const auto it = std::upper_bound(m.step.begin(), m.step.end(), static_cast<double>(ref.step));
        CheckpointMetrics c{kNaN, kNaN, kNaN, kNaN, 0};
        if (it != m.step.begin()) {
            const size_t i = static_cast<size_t>(it - m.step.begin()) - 1;
            c = {m[Metric::LossD][i], m[Metric::LossG][i], m[Metric::DX][i], m[Metric::DGz1][i], m.t[i]};
        } else if (events_ > 0 && last_.step <= static_cast<double>(ref.step)) {
            c = lastMetrics_;
        }
        checkpointMetrics_.push_back(c);
    }
    Event e;
    for (size_t i = 0; i < n; ++i) {
        e.step = m.step[i];
        e.t = m.t[i];
        // Fractional epoch: the step over the steps per epoch when known (sorted keys), else the event's epoch.
        e.epoch = stepsPerEpoch_ > 0 ? m.step[i] / static_cast<double>(stepsPerEpoch_) : m.epoch[i];
        for (size_t k = 0; k < static_cast<size_t>(kMetricCount); ++k) {
            const double v = m.values[k][i];
            e.v[k] = static_cast<float>(v);
            if (std::isfinite(v)) lastFinite_[k] = v;
        }
        addEvent(e);
    }
    if (n > 0) lastMetrics_ = {m[Metric::LossD][n - 1], m[Metric::LossG][n - 1], m[Metric::DX][n - 1], m[Metric::DGz1][n - 1], m.t[n - 1]};
    // Only the newest kSystemKept readings: the tail of a batch that alone holds more.
    systemReadings_ += static_cast<int64_t>(b.system.size());
    for (const SystemSample& r : b.system) {  // every reading, kept or not: the energy adds up across restarts
        if (!std::isfinite(r.energyJ)) continue;
        if (std::isfinite(energyLast_) && r.energyJ < energyLast_) energyBase_ += energyLast_;  // a new trainer process
        energyLast_ = r.energyJ;
    }
    const size_t sysFrom = b.system.size() > kSystemKept ? b.system.size() - kSystemKept : 0;
    system_.insert(system_.end(), b.system.begin() + static_cast<std::ptrdiff_t>(sysFrom), b.system.end());
    while (system_.size() > kSystemKept) system_.pop_front();
    for (const RunFileRef& r : b.samples) samples_.push_back(r);
    checkpoints_.insert(checkpoints_.end(), b.checkpoints.begin(), b.checkpoints.end());
    // EventLineParser puts a metric event's SWD among the scalars under the tag TensorBoard gets.
    for (const ScalarPoint& p : b.scalars)
        if (p.tag == "metrics/swd" && std::isfinite(p.step) && std::isfinite(p.value)) swd_.emplace_back(static_cast<int64_t>(p.step), p.value);
    errors_.insert(errors_.end(), b.errors.begin(), b.errors.end());
    if (!b.loaderAdvice.empty()) loaderAdvice_ = b.loaderAdvice;
    if (!b.state.empty()) state_ = b.state;
    // Attach's live/end state only knows the status events it sent: after --from-offset past the
    // last one it says "running" or "new". Trust the events read, and only learn from it that the
    // trainer is alive (live) or gone (end: a run last seen running or paused has crashed).
    if (state_.empty() && !b.liveState.empty() && b.liveState != RunState::kNew) state_ = b.liveState;
    if (b.ended) {
        const bool endKnown = b.endState != RunState::kNew && !b.endState.empty();
        if (!endKnown && (state_ == RunState::kRunning || state_ == RunState::kPaused))
            state_ = RunState::kCrashed;
        else if (endKnown || state_.empty())
            state_ = b.endState;
    }
    if (!b.device.empty()) device_ = b.device;
    if (b.totalSteps >= 0) totalSteps_ = b.totalSteps;
    if (b.lastStep >= 0) lastStep_ = b.lastStep;
    if (b.endOffset >= 0) offset_ = b.endOffset;
    lines_ += b.lines;
    return std::min(changedFrom_, rows());
}

double RunSeries::x(XAxisMode mode, size_t i) const {
    switch (mode) {
        case XAxisMode::Step:
            return step_[i];
        case XAxisMode::Epoch:
            return epochX_[i];
        case XAxisMode::WallTime:
            return t_[i] - t0_;
    }
    return step_[i];
}

size_t RunSeries::memoryBytes() const {
    size_t bytes = (step_.capacity() + epochX_.capacity() + t_.capacity()) * sizeof(double);
    for (const auto& v : values_) bytes += v.capacity() * sizeof(float);
    bytes += checkpointMetrics_.capacity() * sizeof(CheckpointMetrics) + system_.size() * sizeof(SystemSample) + swd_.capacity() * sizeof(swd_[0]);
    bytes += samples_.memoryBytes();
    return bytes;
}

bool RunSeries::ended() const {
    return state_ == RunState::kFinished || state_ == RunState::kStopped || state_ == RunState::kFailed || state_ == RunState::kCrashed;
}

}  // namespace streetgan::ui
