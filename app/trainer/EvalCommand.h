#pragma once

#include <cstdint>
#include <string>

#include "base/run/TrainConfig.h"
#include "trainer/Command.h"

namespace CLI {
class Option;
}

namespace streetgan {

/// eval --checkpoint CK --data SPEC [--metric parzen|fid|kid|pr|swd[,...]] [--features MODEL.pt]
///      [--samples N] [--json]
/// parzen (the default): the reference's Parzen-window log-likelihood of held-out real images
/// (never seen in training) under generated samples.
/// fid, kid, pr: FID, KID and precision/recall (eval/FeatureMetrics) of N generated images against
/// the run's real images (training selection, no shift/flip/noise), in the feature space of a
/// TorchScript model the user supplies; without --features they are reported unavailable with the
/// reason (JSON null + "<metric>_unavailable"), exit code 0. Real features are cached
/// (--cache-dir, $STREETGAN_FID_CACHE, ~/.cache/streetgan/fid).
/// swd: the multi-scale sliced Wasserstein distance (eval/SwdEvaluator) of --swd-samples generated
/// images against as many real ones, in pixel space: needs no feature model. JSON: swd (mean of
/// the levels), swd_levels {"<px>": ...} (all x 1e3, as in the paper), swd_samples, swd_real_cache.
/// JSON: parzen alone keeps its original document; any other selection adds the FeatureMetrics
/// fields (fid, kid, kid_std, precision, recall, features, samples, real_samples, swd, ...) and
/// "metric" lists the metrics asked for, comma-separated.
class EvalCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string checkpoint_, data_ = "synthetic", device_ = "cpu";
    std::string generator_;              // --generator: "" (G_ema where there is one), ema or raw
    CLI::Option* dataOption_ = nullptr;  // not given: the data the checkpoint was trained on
    CLI::App* app_ = nullptr;
    TrainConfig s3_;  // --s3-* given: they override the checkpoint run's (S3DataOptions)
    std::string metric_ = "parzen", features_, cacheDir_;
    int64_t samples_ = 10000, validation_ = 1000, test_ = 1000, realSamples_ = 0;
    int64_t kidSubsets_ = 100, kidSubsetSize_ = 1000, prK_ = 3;
    int64_t swdSamples_ = TrainConfig::kDefaultSwdSamples;
    uint64_t seed_ = 0;
    int batch_ = 100, featureBatch_ = 50;
    bool json_ = false, noCache_ = false;
};

}  // namespace streetgan
