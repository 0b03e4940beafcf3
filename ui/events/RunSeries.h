// Everything the app knows about one run's events, as columns, on the GUI thread: metrics rows
// (x keys by step, fractional epoch and wall time since the first event; values as float), the
// latest kSystemKept system readings, sample grids, checkpoints (with their exact losses), state.
// Grows by append() from drained EventBatches.
//
// Bounded: a week-long run logs millions of metrics events, so past kMaxRows rows the metrics are
// downsampled in place. Events are grouped in buckets of bucketSize() consecutive events, each kept
// as two rows in the M4 convention MinMaxPyramid uses for drawing (the per-metric minimum at the
// bucket's first x, the maximum at its last x), so a spike stays visible at any zoom; when the rows
// reach kMaxRows again the buckets double (pairs of buckets merge). The first and the last event
// are always exact rows, lastValue() is exact, and an append is amortised O(1) (a compaction costs
// O(kMaxRows) once per ~kMaxRows/4 new buckets). Because the last row and the partial bucket before
// it are rewritten as events arrive, append() returns the first row that is new OR changed: a view
// that cached rows drops its rows from there (PlotPanel does). GUI thread only.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "events/EventBatch.h"
#include "events/RunFileList.h"

namespace streetgan::ui {

enum class XAxisMode { Step, Epoch, WallTime };

class RunSeries {
public:
    /// Metrics rows kept at most. A plot is ~1-2k pixels wide, so drawing the whole run needs ~4k
    /// min/max points; 32k rows leave 8x of that for zooming in on a part before the detail is
    /// only the buckets' envelope, and cost ~2 MB per run (~56 bytes a row) instead of ~60 bytes
    /// per event forever (a week at 10 events/s: ~400 MB).
    static constexpr size_t kMaxRows = 32768;
    /// System readings kept, the newest. The panels show only the last one (SystemPanel); the
    /// trainer logs one every 2 s, ~17 MB a week if all were kept. 256 (~8 minutes, ~14 KB) leave
    /// a recent window for a view that wants one without growing with the run.
    static constexpr size_t kSystemKept = 256;

    RunSeries();

    /// The exact metrics of the last metrics event at or before a checkpoint's step (downsampled
    /// rows are bucket extremes, so a checkpoint's losses are kept here when the event arrives).
    struct CheckpointMetrics {
        double lossD, lossG, dX, dGz1, t;  ///< NaN (t: 0) when no metrics event came before it
    };

    /// Appends a drained batch; returns the first metrics row that is new or changed (rows before
    /// it are as they were).
    size_t append(EventBatch&& batch);

    size_t rows() const { return step_.size(); }
    /// The x key of row `i` in `mode` (non-decreasing in i).
    double x(XAxisMode mode, size_t i) const;
    float value(Metric m, size_t i) const { return values_[static_cast<size_t>(m)][i]; }
    /// The column of `m` (rows() values; NaN where an event lacked it).
    const float* values(Metric m) const { return values_[static_cast<size_t>(m)].data(); }
    double wallTime(size_t i) const { return t_[i]; }
    /// The last finite value of `m` (NaN when none); exact whatever the downsampling.
    double lastValue(Metric m) const { return lastFinite_[static_cast<size_t>(m)]; }
    /// Metrics events per bucket: 1 while every event is its own row, else each bucket is 2 rows.
    int64_t bucketSize() const { return bucket_; }
    /// Metrics events appended (rows() once downsampling started is far fewer).
    int64_t metricsEvents() const { return events_; }
    /// One per checkpoints() entry.
    const std::vector<CheckpointMetrics>& checkpointMetrics() const { return checkpointMetrics_; }
    /// The SWD (x 1e3) of each `metric` event by its step (one per checkpoint evaluated, so few):
    /// what the checkpoint browser shows beside a remote run's checkpoints.
    const std::vector<std::pair<int64_t, double>>& swdBySteps() const { return swd_; }

    /// The last kSystemKept system readings, oldest first (back() is the latest).
    const std::deque<SystemSample>& system() const { return system_; }
    /// System readings appended (system().size() once past kSystemKept is fewer).
    int64_t systemReadings() const { return systemReadings_; }
    /// Joules the run used so far by its system readings' energy_j (NaN when none was measured).
    /// energy_j counts from each trainer process's start, so a reading below the one before it
    /// starts a new process (--resume) whose joules add to the earlier ones.
    double energyJoules() const { return std::isfinite(energyLast_) ? energyBase_ + energyLast_ : energyLast_; }
    /// The sample grids, in the order logged (their paths made from their steps: RunFileList).
    const RunFileList& samples() const { return samples_; }
    const std::vector<RunFileRef>& checkpoints() const { return checkpoints_; }
    const std::vector<std::string>& errors() const { return errors_; }
    /// The trainer's advice on a loader that holds the step back (its last), "" when none.
    const std::string& loaderAdvice() const { return loaderAdvice_; }
    const std::string& state() const { return state_; }
    /// The run is over: finished, stopped, failed or crashed.
    bool ended() const;
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
    struct Event {
        double step = 0, epoch = 0, t = 0;
        std::array<float, kMetricCount> v{};
    };
    // Events folded into the bucket being filled (never the last event, which has its own row).
    struct Bucket {
        int64_t count = 0;
        double step0 = 0, epoch0 = 0, t0 = 0, step1 = 0, epoch1 = 0, t1 = 0;
        std::array<float, kMetricCount> lo{}, hi{};
        void add(double step, double epoch, double t, const float* lo, const float* hi, int64_t events);
    };

    void addEvent(const Event& e);
    void pushRow(double step, double epoch, double t, const float* v);
    void pushBucket(const Bucket& b);
    void truncateRows(size_t n);
    void compact();

    std::vector<double> step_, epochX_;
    std::vector<double> t_;
    std::vector<float> values_[kMetricCount];
    size_t stable_ = 0;       // rows [0, stable_) are final: the first event and full buckets
    size_t changedFrom_ = 0;  // during append(): the first row touched
    int64_t bucket_ = 1;      // events per bucket
    int64_t events_ = 0;
    Bucket pending_;  // the partial bucket, shown as rows after stable_
    Event last_;      // the last event, always the last row
    std::array<double, kMetricCount> lastFinite_;
    std::vector<CheckpointMetrics> checkpointMetrics_;
    std::vector<std::pair<int64_t, double>> swd_;
    CheckpointMetrics lastMetrics_;  // the last metrics event as read, for a checkpoint in a later batch
    std::deque<SystemSample> system_;
    int64_t systemReadings_ = 0;
    double energyBase_ = 0, energyLast_ = std::numeric_limits<double>::quiet_NaN();  // energyJoules()
    RunFileList samples_{"samples/step_", ".png"};                                   // RunDirectory::samplePath
    std::vector<RunFileRef> checkpoints_;
    std::vector<std::string> errors_;
    std::string state_, device_, loaderAdvice_;
    int64_t totalSteps_ = -1, lastStep_ = -1, stepsPerEpoch_ = -1, offset_ = 0, lines_ = 0;
    double t0_ = 0;
};

}  // namespace streetgan::ui
