// QualityMetric "vendi": the Vendi score (Friedman & Dieng, "The Vendi Score: A Diversity
// Evaluation Metric for Machine Learning", TMLR 2023) of the generated images' features, and of the
// real images' as the reference a model should approach. With the cosine kernel of the paper's
// Inception experiments, K = X Xᵀ / n for the n rows of X scaled to unit length; the score is
// exp(-Σ λ log λ) over K's eigenvalues λ (0 log 0 = 0): the effective number of distinct samples,
// 1 when every image is alike, n when all are orthogonal. A collapsing GAN's score falls while its
// FID may still improve. The nonzero eigenvalues of X Xᵀ / n are those of Xᵀ X / n, so the smaller
// of the two (n x n or D x D) is decomposed, in float64.
// Registered by name (ml/eval/FeatureMetric.h); no header: FeatureMetric::find("vendi") is the way in.
// Thread contract: a pure function of its arguments.
#include <algorithm>
#include <cmath>
#include <string>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/eval/FeatureMetric.h"

namespace streetgan {

class VendiScore {
public:
    /// The Vendi score of float (N, D) features, N >= 1. DataError for another shape or a
    /// non-finite value.
    static double of(const at::Tensor& features) {
        if (!features.defined() || features.dim() != 2 || features.size(0) < 1 || features.size(1) < 1)
            throw DataError("Vendi score: expected features (N, D) with N, D >= 1");
        at::Tensor x = features.to(at::kDouble);
        if (!at::isfinite(x).all().item<bool>()) throw DataError("Vendi score: the features hold NaN or infinite values");
        // Unit rows (the cosine kernel, k(x, x) = 1); an all-zero row stays zero and adds nothing.
        x = x / x.norm(2, {1}, true).clamp_min(1e-300);
        const auto n = static_cast<double>(x.size(0));
        const at::Tensor gram = x.size(0) <= x.size(1) ? at::mm(x, x.t()) : at::mm(x.t(), x);
        const at::Tensor lambda = at::linalg_eigvalsh(gram / n).clamp_min(0.0);
        const at::Tensor positive = lambda.masked_select(lambda > 1e-15);
        return std::exp(-(positive * positive.log()).sum().item<double>());
    }
};

const FeatureMetric& featureMetricVendi() {
    static const FeatureMetric metric{"vendi", [](const RealFeatures& real, const at::Tensor& fake, const MetricOptions&) {
                                          return nlohmann::json{{"vendi", VendiScore::of(fake)}, {"vendi_real", VendiScore::of(real.features)}};
                                      }};
    return metric;
}

}  // namespace streetgan
