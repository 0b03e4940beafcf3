#include "ml/eval/FrechetDistance.h"

#include <cmath>
#include <string>
#include <tuple>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/eval/FeatureMetric.h"

namespace streetgan {
namespace {

at::Tensor symmetric(const at::Tensor& m) { return (m + m.t()).mul_(0.5); }

// sqrt of a symmetric PSD matrix: V diag(sqrt(max(l, 0))) V^T.
at::Tensor psdSqrt(const at::Tensor& m) {
    at::Tensor values, vectors;
    std::tie(values, vectors) = at::linalg_eigh(symmetric(m));
    return at::mm(vectors * values.clamp_min(0.0).sqrt().unsqueeze(0), vectors.t());
}

}  // namespace

FeatureStatistics FrechetDistance::statistics(const at::Tensor& features) {
    if (!features.defined() || features.dim() != 2 || features.size(0) < 2)
        throw DataError("FID: statistics need features shaped (N, D) with N >= 2 (got " +
                        (features.defined() ? std::string(c10::str(features.sizes())) : std::string("none")) + "): generate more samples");
    if (!at::isFloatingType(features.scalar_type())) throw DataError("FID: features must be floating point");
    at::Tensor x = features.to(at::kCPU, at::kDouble);
    if (!at::isfinite(x).all().item<bool>()) throw DataError("FID: the features contain NaN or infinite values; check the feature model");
    FeatureStatistics s;
    s.count = x.size(0);
    s.mu = x.mean(0);
    at::Tensor centred = x - s.mu.unsqueeze(0);
    s.sigma = symmetric(at::mm(centred.t(), centred).div_(static_cast<double>(s.count - 1)));
    return s;
}

double FrechetDistance::traceSqrtProduct(const at::Tensor& s1, const at::Tensor& s2) {
    const at::Tensor a = s1.to(at::kCPU, at::kDouble), b = s2.to(at::kCPU, at::kDouble);
    const at::Tensor root = psdSqrt(a);
    const at::Tensor inner = symmetric(at::mm(at::mm(root, b), root));
    return at::linalg_eigvalsh(inner).clamp_min(0.0).sqrt().sum().item<double>();
}

double FrechetDistance::distance(const FeatureStatistics& a, const FeatureStatistics& b) {
    if (!a.mu.defined() || !b.mu.defined() || a.mu.dim() != 1 || b.mu.dim() != 1 || a.mu.size(0) != b.mu.size(0) || a.sigma.dim() != 2 || b.sigma.dim() != 2 ||
        a.sigma.size(0) != a.mu.size(0) || b.sigma.size(0) != b.mu.size(0))
        throw DataError("FID: the two feature statistics have different dimensions; compute both with the same feature model");
    const at::Tensor mu1 = a.mu.to(at::kCPU, at::kDouble), mu2 = b.mu.to(at::kCPU, at::kDouble);
    const at::Tensor s1 = a.sigma.to(at::kCPU, at::kDouble), s2 = b.sigma.to(at::kCPU, at::kDouble);
    const double meanTerm = (mu1 - mu2).pow(2).sum().item<double>();
    const double traces = s1.trace().item<double>() + s2.trace().item<double>();
    return meanTerm + traces - 2.0 * traceSqrtProduct(s1, s2);
}

// QualityMetric "fid": the real set's statistics come cached with its features.
const FeatureMetric& featureMetricFid() {
    static const FeatureMetric metric{"fid", [](const RealFeatures& real, const at::Tensor& fake, const MetricOptions&) {
                                          return nlohmann::json{{"fid", FrechetDistance::distance(real.stats, FrechetDistance::statistics(fake))}};
                                      }};
    return metric;
}

}  // namespace streetgan
