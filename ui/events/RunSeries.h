// Everything the app knows about one run's events, as columns, on the GUI thread: metrics rows
// (x keys by step, fractional epoch and wall time since the first event; values as float to keep
// a million-row run small), system readings, sample grids, checkpoints, state. Grows by append()
// from drained EventBatches. GUI thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "events/EventBatch.h"

namespace streetgan::ui {

enum class XAxisMode { Step, Epoch, WallTime };

class RunSeries {
public:
    /// Appends a drained batch; returns the first new metrics row.
    size_t append(EventBatch&& batch);

    size_t rows() const { return step_.size(); }
    /// The x key of row `i` in `mode`.
    double x(XAxisMode mode, size_t i) const;
    float value(Metric m, size_t i) const { return values_[static_cast<size_t>(m)][i]; }
    /// The column of `m` (rows() values; NaN where an event lacked it).
    const float* values(Metric m) const { return values_[static_cast<size_t>(m)].data(); }
    double wallTime(size_t i) const { return t_[i]; }
    /// The last finite value of `m` (NaN when none).
    double lastValue(Metric m) const;

    const std::vector<SystemSample>& system() const { return system_; }
    const std::vector<RunFileRef>& samples() const { return samples_; }
    const std::vector<RunFileRef>& checkpoints() const { return checkpoints_; }
    const std::vector<std::string>& errors() const { return errors_; }
    const std::string& state() const { return state_; }
    void setState(const std::string& s) { state_ = s; }
    const std::string& device() const { return device_; }
    int64_t totalSteps() const { return totalSteps_; }
    int64_t lastStep() const { return lastStep_; }
    int64_t stepsPerEpoch() const { return stepsPerEpoch_; }
    int64_t offset() const { return offset_; }
    int64_t eventLines() const { return lines_; }
    double startTime() const { return t0_; }
    /// Approximate bytes held.
    size_t memoryBytes() const;

private:
    std::vector<double> step_, epochX_;
    std::vector<double> t_;
    std::vector<float> values_[kMetricCount];
    std::vector<SystemSample> system_;
    std::vector<RunFileRef> samples_, checkpoints_;
    std::vector<std::string> errors_;
    std::string state_, device_;
    int64_t totalSteps_ = -1, lastStep_ = -1, stepsPerEpoch_ = -1, offset_ = 0, lines_ = 0;
    double t0_ = 0;
};

}  // namespace streetgan::ui
