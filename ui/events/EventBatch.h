// What the event parsers produce and the UI consumes: the run's metrics as columns (one
// std::vector<double> per field, the same length), plus the rarer events (system readings,
// sample grids, checkpoints, status, errors, control replies) and the attach position.
// Plain data; no Qt. Built on worker threads, moved to the GUI thread through an EventBuffer.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "base/run/TrainingScalar.h"

namespace streetgan::ui {

/// A training scalar (the table in base/run/TrainingScalar.h).
using Metric = TrainingScalar::Key;
constexpr int kMetricCount = static_cast<int>(TrainingScalar::kCount);

/// The event field of a metric ("loss_d", ...).
inline const char* metricKey(Metric m) { return TrainingScalar::of(m).field; }
/// A readable name ("loss D", "D(x)", ...).
inline const char* metricLabel(Metric m) { return TrainingScalar::of(m).label; }

/// One row per metrics event; a field the event lacks is NaN.
struct MetricColumns {
    std::vector<double> t, step, epoch;
    std::array<std::vector<double>, kMetricCount> values;

    size_t size() const { return step.size(); }
    std::vector<double>& operator[](Metric m) { return values[static_cast<size_t>(m)]; }
    const std::vector<double>& operator[](Metric m) const { return values[static_cast<size_t>(m)]; }
    void append(const MetricColumns& other);
    void clear();
};

/// A system event (SystemEvent); fields the trainer could not read are NaN.
struct SystemSample {
    double t = 0, step = std::numeric_limits<double>::quiet_NaN();
    double cpuPercent = std::numeric_limits<double>::quiet_NaN();
    double rssMb = std::numeric_limits<double>::quiet_NaN();
    double gpuUtil = std::numeric_limits<double>::quiet_NaN();
    double gpuMemMb = std::numeric_limits<double>::quiet_NaN();
    double readMbS = std::numeric_limits<double>::quiet_NaN();
    double energyJ = std::numeric_limits<double>::quiet_NaN();  ///< since the trainer process started
    double powerW = std::numeric_limits<double>::quiet_NaN();   ///< over the interval before the reading
    std::string energySource;                                   ///< what energyJ counts ("" when not measured)
    std::map<std::string, std::string> unavailable;             ///< why a reading is never there (EventField::kUnavailable*)
};

/// A sample grid (samples/step_N.png) or a checkpoint, path relative to the run directory.
struct RunFileRef {
    int64_t step = 0;
    std::string path;
};

/// One value of a tag with no metric of its own (a TensorBoard run's other tags).
struct ScalarPoint {
    std::string tag;
    double step = 0, t = 0, value = 0;
};

struct EventBatch {
    MetricColumns metrics;
    std::vector<ScalarPoint> scalars;
    std::vector<SystemSample> system;
    std::vector<RunFileRef> samples, checkpoints;
    std::string state;   ///< the last status event's state in this batch, "" when none
    std::string device;  ///< from the running status event
    int64_t totalSteps = -1, stepsPerEpoch = -1, lastStep = -1;
    double firstT = 0;                 ///< wall time of the first event of any kind (0: none)
    std::vector<std::string> errors;   ///< error events' messages
    std::string loaderAdvice;          ///< the last data event's loader_advice message (no "data: "), "" when none
    std::vector<std::string> replies;  ///< control replies (raw JSON)
    int64_t endOffset = -1;            ///< resume offset after the last line consumed (-1: none)
    bool live = false;                 ///< the attach backlog was sent
    /// The live line's state. Attach derives it from the status events it sent, so after
    /// --from-offset past the last status it says "running" (alive) or "new" (not alive).
    std::string liveState;
    bool ended = false;    ///< the attach ended: the daemon is gone
    std::string endState;  ///< its final state
    int64_t lines = 0;     ///< event lines consumed

    bool empty() const;
    /// Appends `later` (which happened after this batch) to this one.
    void merge(EventBatch&& later);
};

}  // namespace streetgan::ui
