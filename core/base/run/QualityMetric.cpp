#include "base/run/QualityMetric.h"

#include "base/util/Errors.h"
#include "base/util/TextList.h"

namespace streetgan {

const std::vector<QualityMetric::Spec>& QualityMetric::all() {
    static const std::vector<Spec> metrics = {
        {kFid, "FID", Needs::FeatureModel, "the feature model over --metric-samples generated and real images (real ones cached)", {"fid"}},
        {kKid, "KID", Needs::FeatureModel, "as FID (the same features), plus subset sums", {"kid", "kid_std"}},
        {kPr, "precision/recall", Needs::FeatureModel, "as FID (the same features), plus k-nearest-neighbour radii", {"precision", "recall"}},
        {kDc, "density/coverage", Needs::FeatureModel, "as FID (the same features), plus the real set's 5-NN radii", {"density", "coverage"}},
        {"vendi", "Vendi score", Needs::FeatureModel, "as FID (the same features), plus an eigendecomposition per set", {"vendi", "vendi_real"}},
        {kSwd, "SWD", Needs::Nothing, "Laplacian-pyramid patches of --metric-swd-samples images per side: ~12 s on one CPU thread at 64 px", {"swd"}},
    };
    return metrics;
}

const QualityMetric::Spec* QualityMetric::find(std::string_view name) {
    for (const Spec& s : all())
        if (name == s.name) return &s;
    return nullptr;
}

const char* QualityMetric::namesCsv() {
    static const std::string csv = [] {
        std::string out;
        for (const Spec& s : all()) out += (out.empty() ? "" : ",") + std::string(s.name);
        return out;
    }();
    return csv.c_str();
}

std::string QualityMetric::namesText() {
    std::vector<std::string> names;
    for (const Spec& s : all()) names.emplace_back(s.name);
    return TextList::oneOf(names);
}

void QualityMetric::check(const std::vector<std::string>& names) {
    if (names.empty()) throw ConfigError("metric list is empty: use " + namesText() + " or several, e.g. " + namesCsv());
    for (const auto& m : names)
        if (!find(m)) throw ConfigError("metric '" + m + "' is unknown: use " + namesText());
}

bool QualityMetric::anyNeedsFeatures(const std::vector<std::string>& names) {
    for (const auto& m : names)
        if (const Spec* s = find(m); s && s->needs == Needs::FeatureModel) return true;
    return false;
}

}  // namespace streetgan
