// The multi-scale sliced Wasserstein distance (SlicedWasserstein) of a generator against a real
// image source: `samples` generated images against as many real ones, in pixel space, so it needs
// no feature model and is there on every run. Used by FeatureMetrics for the metric name "swd"
// (`streetgan-trainer eval --metric swd`, TrainingMetrics at checkpoints).
//
// Generated images: `samples` z ~ N(0, 1) drawn at once from a CPU generator seeded with
// SeedHash::of(seed, "swd") (its own set, so its figures do not depend on which other metrics are
// computed or on their sample count), the generator in eval mode without autograd, Tanh output
// mapped to 8-bit [0, 255] (FeatureExtractor::toNetworkInput), as the official code quantises its
// fakes before the pyramid. Real images: n = min(samples, source size) images at evenly spaced
// indices (RealImageSource::loadEvenlySpaced); when the source is smaller, only the first n
// generated images count (SWD compares sets of equal size, as the official code does). The real
// sets' finalised descriptors are cached on disk (RealDescriptorCache) and in this object.
//
// Result: {"swd": mean of the levels x 1e3, "swd_levels": {"64": x1e3, "32": ..., "16": ...},
// "swd_samples": n, "swd_real_cache": "hit" | "miss" | "off"}; or null with "swd_unavailable".
// Cost: at 128 neighbourhoods of 147 floats per image and level, each set holds 75 KB per image and
// level (512 images at 64 px: 113 MB per set).
// Thread contract: one thread at a time per instance; cancel may be set from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include "ml/eval/FeatureMetrics.h"
#include "ml/eval/SlicedWasserstein.h"
#include "ml/model/Generator.h"

namespace streetgan {

class SwdEvaluator {
public:
    /// Throws ConfigError for samples < 2 or a bad batch size.
    SwdEvaluator(const MetricOptions& options, c10::Device device, SwdParams params = {});

    /// Computes the distance (see the header comment); nullopt when cancelled. Throws DataError
    /// for a generator of another image size, an image size SWD cannot use, or a failing source.
    std::optional<nlohmann::json> evaluate(Generator& g, const RealImageSource& real, const MetricCallbacks& cb = {});
    /// {"swd": null, "swd_unavailable": reason}.
    static nlohmann::json unavailable(const std::string& reason);
    /// The seed of the generated images' z for a metric seed.
    static uint64_t zSeed(uint64_t metricSeed);

    const SlicedWasserstein& swd() const { return swd_; }

private:
    std::optional<std::vector<at::Tensor>> realDescriptors(const RealImageSource& real, int64_t count, const MetricCallbacks& cb, std::string& cacheState);

    MetricOptions opt_;
    c10::Device device_;
    SlicedWasserstein swd_;
    nlohmann::json realKey_;  ///< key of realMemo_
    std::optional<std::vector<at::Tensor>> realMemo_;
};

}  // namespace streetgan
