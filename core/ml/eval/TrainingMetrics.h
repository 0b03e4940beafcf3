// FID / KID / precision-recall during training: the Trainer asks at each checkpoint whether
// metrics are due (every `metric_every_checkpoints` checkpoints written by this process) and, if
// so, appends the returned event to events.jsonl, where the dashboard plots it and the checkpoint
// browser lists it next to the checkpoint of the same step.
//
// Config (TrainConfig): metric_every_checkpoints (0: off), metric_features (TorchScript feature
// model, e.g. clean-fid's inception-2015-12-05.pt), metric_samples (generated and real images,
// default 2000), metrics (subset of fid, kid, pr), metric_cache_dir (empty: the default cache).
// Real images are the run's training data (cfg.data with its selection; shift, flip and noise off),
// their features cached on disk and in memory after the first evaluation. Generated images use the
// same z at every checkpoint (seeded from cfg.seed), drawn from a private generator: evaluating
// never touches torch's default generator, so a run with metrics trains exactly like one without.
//
// Thread contract: call from the training thread (it uses the generator and owns a TorchScript
// module); `cancel` may be set from any thread. Ownership: holds no reference to the generator.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

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

private:
    TrainConfig cfg_;
    int64_t every_ = 0;
    FeatureMetrics metrics_;
    std::optional<RealImageSource> real_;
};

}  // namespace streetgan
