// One quality metric computed from the feature network's features of the real and the generated
// images (QualityMetric's rows that need the feature model), as the file that computes it registers
// it: FID, KID, precision/recall, density/coverage, Vendi... The metrics a build has are the ones
// core/ml/CMakeLists.txt lists in STREETGAN_FEATURE_METRICS; each listed NAME is a file here
// defining `const FeatureMetric& featureMetricNAME()`, and FeatureMetric::find reads the generated
// list, so that FeatureMetrics computes whatever --metrics names without naming one. Another
// metric is its QualityMetric row, its file and that file's line in the CMake list.
//
// Thread contract: the registry is immutable; find/names run on any thread. compute() has
// FeatureMetrics' contract (one thread per call; it only reads its arguments).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "ml/eval/FeatureMetrics.h"
#include "ml/eval/RealFeatureCache.h"

namespace streetgan {

struct FeatureMetric {
    const char* name;  ///< its QualityMetric row's name ("fid")
    /// The metric of float32 (N, D) real and (M, D) generated features on the CPU: a JSON object
    /// with its QualityMetric row's figures (numbers) and any detail ("kid_subsets"); where the
    /// sets cannot give it (too few samples), the figures null and "<name>_unavailable" the reason.
    nlohmann::json (*compute)(const RealFeatures& real, const at::Tensor& fake, const MetricOptions& options);

    /// The metric named `name` in this build, or nullptr.
    static const FeatureMetric* find(std::string_view name);
    /// Every registered metric's name, in the CMake list's order.
    static std::vector<std::string> names();
};

}  // namespace streetgan
