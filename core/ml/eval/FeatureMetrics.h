// FID, KID and precision/recall of a generator against a real image source, in one pass of both
// image sets through a user-supplied feature network (see FeatureExtractor), and the sliced
// Wasserstein distance "swd" in pixel space (SwdEvaluator: no feature network, its own image sets).
// Used by `streetgan-trainer eval --metric fid,kid,pr,swd` and, through TrainingMetrics, at
// checkpoints. Each requested metric is computed or reported unavailable on its own: a missing
// feature model leaves swd unaffected.
//
// Generated images: `samples` latent vectors z ~ N(0, 1) drawn at once from a CPU generator
// seeded with `seed` (so the set does not depend on the batch size), the generator in eval mode
// without autograd on its own device, batch by batch; Tanh output mapped to 8-bit [0, 255] like
// decoded photos (FeatureExtractor::toNetworkInput).
// Real images: `realSamples` images of the source at evenly spaced indices floor(i * size / count)
// (all of them when the source has fewer), loaded with augmentSeed 0; the source should be opened
// without random shift, flip or noise (realSource() does that). Their features and statistics are
// cached on disk (RealFeatureCache) and in this object.
//
// Result: a JSON object with, per requested metric, its numbers or null plus "<metric>_unavailable"
// with the reason (no feature model, a model that fails, too few samples): never a made-up value.
//   fid; kid, kid_std, kid_subsets, kid_subset_size; precision, recall, pr_k;
//   features (path), features_sha256, feature_dim, samples, real_samples, real_cache (hit | miss |
//   off), seconds, timing {real_features, generated_features, metrics} (seconds of each phase; the
//   real phase includes loading or computing the cached features); swd, swd_levels, swd_samples,
//   swd_real_cache (SwdEvaluator).
// Thread contract: one thread at a time per instance (it owns a TorchScript module); progress and
// warn run on the calling thread; cancel may be set from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include "base/run/TrainConfig.h"
#include "ml/dataset/ImageSource.h"
#include "ml/eval/RealFeatureCache.h"
#include "ml/model/Generator.h"

namespace streetgan {

class FeatureExtractor;
class SwdEvaluator;

struct MetricOptions {
    std::vector<std::string> metrics = {"fid"};            ///< any of "fid", "kid", "pr", "swd"
    std::string features;                                  ///< TorchScript feature model; empty: metrics unavailable
    int64_t samples = 2000;                                ///< generated images
    int64_t realSamples = 0;                               ///< real images (0: same as samples; capped at the source size)
    uint64_t seed = 0;                                     ///< seed of the generated images' z
    int batch = 50;                                        ///< images per generator and feature-network call
    int64_t kidSubsets = 100;                              ///< KID subsets (clean-fid / torch-fidelity default)
    int64_t kidSubsetSize = 1000;                          ///< KID subset size, clamped to the sample counts
    int64_t prK = 3;                                       ///< k of the k-NN manifolds (Kynkäänniemi et al.)
    std::string cacheDir;                                  ///< empty: RealFeatureCache::defaultDir()
    bool cache = true;                                     ///< read and write the on-disk real-feature cache
    int64_t swdSamples = TrainConfig::kDefaultSwdSamples;  ///< swd: generated and real images
};

/// A real image source ready for metrics and the identity its cache key uses.
struct RealImageSource {
    std::shared_ptr<const ImageSource> source;
    std::string identity;  ///< describe() plus what it leaves out (synthetic seed, crop factor)
    int imageSize = 64;

    /// Images [from, from + n) of the selection of `count` images at evenly spaced indices
    /// floor(i * size / count) (all of them when count >= size), 8-bit RGB (n, S, S, 3), decoded on
    /// torch's intra-op threads. Throws DataError like ImageSource::load.
    at::Tensor loadEvenlySpaced(int64_t from, int64_t n, int64_t count) const;
};

struct MetricCallbacks {
    std::function<void(const std::string& message)> warn;                     ///< recoverable problems (corrupt cache, ...)
    std::function<void(const std::string& phase, double fraction)> progress;  ///< "real features" | "generated features", 0..1
    const std::atomic<bool>* cancel = nullptr;                                ///< polled between batches
};

class FeatureMetrics {
public:
    /// Checks the options (ConfigError naming the first bad one); the model loads on first use.
    FeatureMetrics(MetricOptions options, c10::Device device);
    ~FeatureMetrics();
    FeatureMetrics(const FeatureMetrics&) = delete;
    FeatureMetrics& operator=(const FeatureMetrics&) = delete;

    /// "fid,kid,pr" -> {"fid", "kid", "pr"}; throws ConfigError for unknown names or an empty list.
    static std::vector<std::string> parseList(const std::string& commaSeparated);
    /// Throws ConfigError unless every name is fid, kid, pr or swd.
    static void checkNames(const std::vector<std::string>& metrics);
    /// The reason given when no feature model is configured.
    static std::string noFeatureModelReason();
    /// A result in which every requested metric is null with `reason`.
    static nlohmann::json unavailable(const std::vector<std::string>& metrics, const std::string& reason);

    /// The run's real images for `spec` (synthetic, folder, archive, packed cache): the training
    /// selection with shift, flip and noise off, at run.model.imgSize. Throws DataError like
    /// DataSources::open.
    static RealImageSource realSource(const std::string& spec, const TrainConfig& run);

    /// Images [0, limit) of the set of `count` generated images whose z ~ N(0, 1) are drawn at once
    /// (count x nz) from a CPU generator seeded with `seed` (so the set does not depend on the batch
    /// size), G in eval mode without autograd on its own device, `batch` at a time: consume(Tanh
    /// output float (b, 3, S, S) on G's device, index of its first image). False when cancelled.
    static bool generate(Generator& g, int64_t count, int64_t limit, uint64_t seed, int batch, const MetricCallbacks& cb,
                         const std::function<void(const at::Tensor& images, int64_t first)>& consume);

    /// Loads the feature model if needed; "" when usable, otherwise the reason it is not.
    std::string featureModelProblem();

    /// Computes the requested metrics (see the header comment). Returns nullopt when cancelled.
    /// A missing or unloadable feature model is reported in the result (metrics null with the
    /// reason). Throws DataError for broken inputs found on the way: a generator of another image
    /// size, a source that fails to load, a feature network that fails or returns non-finite values.
    std::optional<nlohmann::json> evaluate(Generator& g, const RealImageSource& real, const MetricCallbacks& cb = {});

    const MetricOptions& options() const { return opt_; }

private:
    std::optional<RealFeatures> realFeatures(const RealImageSource& real, const MetricCallbacks& cb, std::string& cacheState);
    std::optional<nlohmann::json> featureMetrics(Generator& g, const RealImageSource& real, const MetricCallbacks& cb);
    bool wants(const char* metric) const;
    bool wantsFeatures() const;

    MetricOptions opt_;
    c10::Device device_;
    std::unique_ptr<FeatureExtractor> extractor_;
    std::string loadProblem_;
    nlohmann::json realKey_;  ///< key of realMemo_
    std::optional<RealFeatures> realMemo_;
    std::unique_ptr<SwdEvaluator> swd_;  ///< when "swd" is asked for
};

}  // namespace streetgan
