#include "events/RunSeries.h"

#include <cmath>
#include <limits>

#include "base/run/Events.h"

namespace streetgan::ui {

size_t RunSeries::append(EventBatch&& b) {
    const size_t from = rows();
    if (t0_ == 0 && b.firstT != 0) t0_ = b.firstT;
    if (b.stepsPerEpoch > 0) stepsPerEpoch_ = b.stepsPerEpoch;
    const auto& m = b.metrics;
    const size_t n = m.size();
    step_.insert(step_.end(), m.step.begin(), m.step.end());
    t_.insert(t_.end(), m.t.begin(), m.t.end());
    epochX_.reserve(epochX_.size() + n);
    for (size_t i = 0; i < n; ++i) {
        // Fractional epoch: the step over the steps per epoch when known (sorted keys), else the event's epoch.
        epochX_.push_back(stepsPerEpoch_ > 0 ? m.step[i] / static_cast<double>(stepsPerEpoch_) : m.epoch[i]);
    }
    for (int k = 0; k < kMetricCount; ++k) {
        auto& dst = values_[k];
        const auto& src = m.values[static_cast<size_t>(k)];
        dst.reserve(dst.size() + n);
        for (double v : src) dst.push_back(static_cast<float>(v));
    }
    system_.insert(system_.end(), b.system.begin(), b.system.end());
    samples_.insert(samples_.end(), b.samples.begin(), b.samples.end());
    checkpoints_.insert(checkpoints_.end(), b.checkpoints.begin(), b.checkpoints.end());
    errors_.insert(errors_.end(), b.errors.begin(), b.errors.end());
    if (!b.state.empty()) state_ = b.state;
    // Attach's live/end state only knows the status events it sent: after --from-offset past the
    // last one it says "running" or "new". Trust the events read, and only learn from it that the
    // trainer is alive (live) or gone (end: a run last seen running or paused has crashed).
    if (state_.empty() && !b.liveState.empty() && b.liveState != RunState::kNew) state_ = b.liveState;
    if (b.ended) {
        if (b.endState != RunState::kNew && !b.endState.empty())
            state_ = b.endState;
        else if (state_ == RunState::kRunning || state_ == RunState::kPaused)
            state_ = RunState::kCrashed;
        else if (state_.empty())
            state_ = b.endState;
    }
    if (!b.device.empty()) device_ = b.device;
    if (b.totalSteps >= 0) totalSteps_ = b.totalSteps;
    if (b.lastStep >= 0) lastStep_ = b.lastStep;
    if (b.endOffset >= 0) offset_ = b.endOffset;
    lines_ += b.lines;
    return from;
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

double RunSeries::lastValue(Metric m) const {
    const auto& v = values_[static_cast<size_t>(m)];
    for (size_t i = v.size(); i-- > 0;)
        if (std::isfinite(v[i])) return v[i];
    return std::numeric_limits<double>::quiet_NaN();
}

size_t RunSeries::memoryBytes() const {
    size_t bytes = (step_.capacity() + epochX_.capacity() + t_.capacity()) * sizeof(double);
    for (const auto& v : values_) bytes += v.capacity() * sizeof(float);
    return bytes;
}

}  // namespace streetgan::ui
