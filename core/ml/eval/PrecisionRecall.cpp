#include "ml/eval/PrecisionRecall.h"

#include <algorithm>
#include <string>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/eval/FeatureMetric.h"

namespace streetgan {
namespace {

constexpr int64_t kMaxDistanceValues = int64_t{16} << 20;

at::Tensor checked(const at::Tensor& t, const char* what, int64_t k) {
    if (!t.defined() || t.dim() != 2 || t.size(0) <= k)
        throw DataError(std::string("precision/recall: the ") + what + " features must be shaped (N, D) with N > k = " + std::to_string(k) +
                        ": generate more samples or lower k");
    if (!at::isFloatingType(t.scalar_type())) throw DataError(std::string("precision/recall: the ") + what + " features must be floating point");
    at::Tensor x = t.to(at::kCPU, at::kFloat).contiguous();
    if (!at::isfinite(x).all().item<bool>())
        throw DataError(std::string("precision/recall: the ") + what + " features contain NaN or infinite values; check the feature model");
    return x;
}

at::Tensor squaredNorms(const at::Tensor& m) { return m.pow(2).sum(1); }

// Squared distances of rows [start, start + r) of `a` to every row of `b`: float32 (r, |b|).
at::Tensor distances(const at::Tensor& a, int64_t start, int64_t r, const at::Tensor& aSq, const at::Tensor& b, const at::Tensor& bSq) {
    at::Tensor d = at::mm(a.narrow(0, start, r), b.t()).mul_(-2.0f);
    return d.add_(aSq.narrow(0, start, r).unsqueeze(1)).add_(bSq.unsqueeze(0)).clamp_min_(0.0f);
}

int64_t rowsPerBlock(int64_t cols) { return std::max<int64_t>(1, kMaxDistanceValues / std::max<int64_t>(1, cols)); }

}  // namespace

at::Tensor PrecisionRecall::kthNeighbourRadiiSquared(const at::Tensor& points, int64_t k) {
    if (k < 1) throw ConfigError("precision/recall: k must be at least 1 (got " + std::to_string(k) + ")");
    const at::Tensor x = checked(points, "manifold", k);
    const at::Tensor sq = squaredNorms(x);
    const int64_t n = x.size(0), block = rowsPerBlock(n);
    at::Tensor out = at::empty({n}, at::TensorOptions().dtype(at::kFloat));
    for (int64_t s = 0; s < n; s += block) {
        const int64_t r = std::min(block, n - s);
        at::Tensor d = distances(x, s, r, sq, x, sq);
        // A point's distance to itself is 0 exactly (not rounding noise), so the (k+1)-th smallest
        // is the k-th neighbour, as in the reference's kthvalue(k + 1).
        d.diagonal(s).zero_();
        out.narrow(0, s, r).copy_(std::get<0>(at::kthvalue(d, k + 1, 1)));
    }
    return out;
}

double PrecisionRecall::coverage(const at::Tensor& manifold, const at::Tensor& radiiSquared, const at::Tensor& probes) {
    const at::Tensor m = manifold.to(at::kCPU, at::kFloat).contiguous(), p = probes.to(at::kCPU, at::kFloat).contiguous();
    const at::Tensor radii = radiiSquared.to(at::kCPU, at::kFloat);
    const at::Tensor mSq = squaredNorms(m), pSq = squaredNorms(p);
    const int64_t n = p.size(0), block = rowsPerBlock(m.size(0));
    int64_t inside = 0;
    for (int64_t s = 0; s < n; s += block) {
        const int64_t r = std::min(block, n - s);
        at::Tensor d = distances(p, s, r, pSq, m, mSq);
        inside += d.le(radii.unsqueeze(0)).any(1).sum().item<int64_t>();
    }
    return static_cast<double>(inside) / static_cast<double>(n);
}

std::pair<double, double> PrecisionRecall::densityCoverage(const at::Tensor& real, const at::Tensor& fake, int64_t k) {
    if (k < 1) throw ConfigError("density/coverage: k must be at least 1 (got " + std::to_string(k) + ")");
    const at::Tensor r = checked(real, "real", k), f = checked(fake, "generated", k);
    if (r.size(1) != f.size(1))
        throw DataError("density/coverage: real features have " + std::to_string(r.size(1)) + " dimensions but generated ones " + std::to_string(f.size(1)) +
                        "; compute both with the same feature model");
    const at::Tensor radii = kthNeighbourRadiiSquared(r, k);
    const at::Tensor rSq = squaredNorms(r), fSq = squaredNorms(f);
    const int64_t m = f.size(0), block = rowsPerBlock(r.size(0));
    int64_t inBalls = 0;
    at::Tensor covered = at::zeros({r.size(0)}, at::TensorOptions().dtype(at::kBool));
    for (int64_t s = 0; s < m; s += block) {
        const int64_t rows = std::min(block, m - s);
        const at::Tensor inside = distances(f, s, rows, fSq, r, rSq).le(radii.unsqueeze(0));  // (rows, N): generated row in real ball
        inBalls += inside.sum().item<int64_t>();
        covered.logical_or_(inside.any(0));
    }
    const double density = static_cast<double>(inBalls) / (static_cast<double>(k) * static_cast<double>(m));
    return {density, covered.to(at::kDouble).mean().item<double>()};
}

PrecisionRecallResult PrecisionRecall::compute(const at::Tensor& real, const at::Tensor& fake, int64_t k) {
    if (k < 1) throw ConfigError("precision/recall: k must be at least 1 (got " + std::to_string(k) + ")");
    const at::Tensor r = checked(real, "real", k), f = checked(fake, "generated", k);
    if (r.size(1) != f.size(1))
        throw DataError("precision/recall: real features have " + std::to_string(r.size(1)) + " dimensions but generated ones " + std::to_string(f.size(1)) +
                        "; compute both with the same feature model");
    PrecisionRecallResult out;
    out.k = k;
    out.precision = coverage(r, kthNeighbourRadiiSquared(r, k), f);
    out.recall = coverage(f, kthNeighbourRadiiSquared(f, k), r);
    return out;
}

// QualityMetric "pr": k-NN manifolds at the options' k; unavailable with k or fewer samples.
const FeatureMetric& featureMetricPr() {
    static const FeatureMetric metric{"pr", [](const RealFeatures& real, const at::Tensor& fake, const MetricOptions& o) {
                                          nlohmann::json j;
                                          if (std::min(real.features.size(0), fake.size(0)) <= o.prK) {
                                              j["precision"] = j["recall"] = nullptr;
                                              j["pr_unavailable"] = "precision/recall need more than k = " + std::to_string(o.prK) + " samples in each set";
                                              return j;
                                          }
                                          const PrecisionRecallResult pr = PrecisionRecall::compute(real.features, fake, o.prK);
                                          return nlohmann::json{{"precision", pr.precision}, {"recall", pr.recall}, {"pr_k", pr.k}};
                                      }};
    return metric;
}

// QualityMetric "dc": density and coverage at the paper's k = 5 (Naeem et al. 2020).
const FeatureMetric& featureMetricDc() {
    static const FeatureMetric metric{"dc", [](const RealFeatures& real, const at::Tensor& fake, const MetricOptions&) {
                                          constexpr int64_t kDcK = 5;
                                          const auto [density, coverage] = PrecisionRecall::densityCoverage(real.features, fake, kDcK);
                                          return nlohmann::json{{"density", density}, {"coverage", coverage}, {"dc_k", kDcK}};
                                      }};
    return metric;
}

}  // namespace streetgan
