#include "ml/eval/FeatureMetric.h"

namespace streetgan {

// The metrics of this build: FeatureMetricList.inc is generated from STREETGAN_FEATURE_METRICS
// (core/ml/CMakeLists.txt), one STREETGAN_FEATURE_METRIC(NAME) each. Named here, rather than
// registered by a static initialiser in each file, so that the linker keeps every one of them
// (nothing else refers to a metric's object file in the static library).
#define STREETGAN_FEATURE_METRIC(NAME) const FeatureMetric& featureMetric##NAME();
#include "FeatureMetricList.inc"
#undef STREETGAN_FEATURE_METRIC

namespace {

const std::vector<const FeatureMetric*>& metrics() {
#define STREETGAN_FEATURE_METRIC(NAME) &featureMetric##NAME(),
    static const std::vector<const FeatureMetric*> list = {
#include "FeatureMetricList.inc"
    };
#undef STREETGAN_FEATURE_METRIC
    return list;
}

}  // namespace

const FeatureMetric* FeatureMetric::find(std::string_view name) {
    for (const FeatureMetric* m : metrics())
        if (name == m->name) return m;
    return nullptr;
}

std::vector<std::string> FeatureMetric::names() {
    std::vector<std::string> out;
    for (const FeatureMetric* m : metrics()) out.emplace_back(m->name);
    return out;
}

}  // namespace streetgan
