// FID / KID / precision-recall / SWD during training: the Trainer asks at each checkpoint whether
// metrics are due (every `metric_every_checkpoints` checkpoints written by this process) and, if
// so, appends the returned event to events.jsonl, where the dashboard plots it and the checkpoint
// browser lists it next to the checkpoint of the same step.
//
// Config (TrainConfig): metric_every_checkpoints (default 1; 0: off), metric_features (TorchScript
// feature model, e.g. clean-fid's inception-2015-12-05.pt), metric_samples (fid/kid/pr: generated
// and real images, default 2000), metric_swd_samples (swd, default 512), metrics (subset of fid,
// kid, pr, swd; default all four: swd needs no feature model), metric_cache_dir (empty: the
// default cache).
// Real images are the run's training data (cfg.data with its selection; shift, flip and noise off),
// their features cached on disk and in memory after the first evaluation. Generated images use the
// same z at every checkpoint (seeded from cfg.seed), drawn from a private generator: evaluating
// never touches torch's default generator, so a run with metrics trains exactly like one without.
//
// In the background (submit/poll/finish, the training loop's way): an evaluation takes minutes,
// so the loop only copies G at the step due and a worker thread evaluates the copy while training
// goes on; the loop picks the finished event up between steps (poll) and logs it with the step it
// was measured at. A thread, not a child process: the evaluation is inference on private modules
// (its own copy of G, its own TorchScript feature model, no autograd, no default RNG), which
// LibTorch supports from any thread; a child would have to reload LibTorch and the feature model
// and receive G's weights for each evaluation. At most one evaluation runs; one falling due
// meanwhile waits as the next and a later one replaces it (the replaced step gets a "skipped"
// event): the queue never grows however slow the evaluation, and the newest G, the one a reader
// wants numbers for, is never the one dropped (the run's last checkpoint always gets its metrics).
// The worker limits its intra-op threads to 1/kThreadShare of the training thread's, so training
// keeps most cores (OpenMP thread counts are per thread in LibTorch's build).
//
// Thread contract: evaluateEvent/evaluate, submit, poll and finish from one thread (the training
// thread); do not mix evaluateEvent with a pending background evaluation. `cancel` (the argument)
// may be set from any thread. Ownership: holds no reference to the generator (submit copies it).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include "base/run/Events.h"
#include "base/run/TrainConfig.h"
#include "ml/eval/FeatureMetrics.h"
#include "ml/model/Generator.h"

namespace streetgan {

class TrainingMetrics {
public:
    /// Cheap: loads nothing yet. Throws ConfigError for invalid metric settings (validate()).
    TrainingMetrics(const TrainConfig& cfg, c10::Device device);
    ~TrainingMetrics();
    TrainingMetrics(const TrainingMetrics&) = delete;
    TrainingMetrics& operator=(const TrainingMetrics&) = delete;

    /// metric_every_checkpoints > 0.
    bool enabled() const { return every_ > 0; }
    /// True when the `checkpointsWritten`-th checkpoint of this process (1-based) gets metrics.
    bool due(int64_t checkpointsWritten) const { return enabled() && checkpointsWritten > 0 && checkpointsWritten % every_ == 0; }

    /// The metric event for the generator at `step` (G is put in eval mode and restored): fid,
    /// kid, kid_std, precision, recall, features, samples, real_samples, seconds, ... (MetricEvent).
    /// Never throws for metric problems: a missing feature model, a failing data source or
    /// network, or cancellation come back as null metrics with "<metric>_unavailable" reasons, and
    /// recoverable problems (a corrupt cache file) as "warnings": [..].
    MetricEvent evaluateEvent(Generator& g, int64_t step, const std::atomic<bool>* cancel = nullptr);
    /// evaluateEvent() as its JSON object ({"kind":"metric",...}).
    nlohmann::json evaluate(Generator& g, int64_t step, const std::atomic<bool>* cancel = nullptr);

    /// The background evaluation's share of the training thread's intra-op threads (1/4, at
    /// least one): enough to finish an evaluation well within a few checkpoints' time while the
    /// training thread keeps most cores.
    static constexpr int kThreadShare = 4;
    /// Copies G now (parameters and buffers, on G's device, eval mode; torch's default generator
    /// left as it was) and evaluates the copy at `step` on the worker thread (started on first
    /// use): at once when none runs, else next (replacing, as "skipped", one already waiting).
    void submit(const Generator& g, int64_t step);
    /// The events of evaluations finished since the last call, in step order; never blocks.
    std::vector<MetricEvent> poll();
    /// Waits for the running and waiting evaluations and returns their events (poll's too). When
    /// `stop` is or becomes set (checked every 100 ms) they are cancelled: events with nulls and
    /// "cancelled: the run is stopping" reasons.
    std::vector<MetricEvent> finish(const std::atomic<bool>* stop);
    /// An evaluation runs or waits.
    bool busy() const;
    /// Tests: called on the worker with the step and the cancel flag before each background
    /// evaluation (e.g. to make it slow); empty: none. Set while no run evaluates.
    using BackgroundHook = std::function<void(int64_t step, const std::atomic<bool>& cancelled)>;
    static void setBackgroundHookForTests(BackgroundHook hook);

private:
    struct Job {
        std::shared_ptr<Generator> g;
        int64_t step = 0;
    };
    void work();
    void startWorker();
    /// The sample counts and feature model of the metrics asked for, where the result lacks them.
    void fillDefaults(MetricEvent& e) const;

    TrainConfig cfg_;
    int64_t every_ = 0;
    FeatureMetrics metrics_;
    std::optional<RealImageSource> real_;
    // Background evaluation; mu_ guards the rest.
    std::thread worker_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::optional<Job> next_;
    bool running_ = false, quit_ = false;
    int64_t runningStep_ = -1;  // the step being evaluated (valid while running_)
    std::vector<MetricEvent> done_;
    std::atomic<bool> cancel_{false};
};

}  // namespace streetgan
