#include "ml/eval/KernelInceptionDistance.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "base/util/Errors.h"
#include "ml/eval/FeatureMetric.h"

namespace streetgan {
namespace {

// Gram matrices of all three pairs at most this many float64 values in all (256 MB).
constexpr int64_t kMaxGramValues = int64_t{32} << 20;

// (a b^T / d + 1)^3 in float64.
at::Tensor kernel(const at::Tensor& a, const at::Tensor& b) {
    const double d = static_cast<double>(a.size(1));
    return at::mm(a, b.t()).div_(d).add_(1.0).pow_(3);
}

at::Tensor checked(const at::Tensor& t, const char* what) {
    if (!t.defined() || t.dim() != 2 || t.size(0) < 2)
        throw DataError(std::string("KID: the ") + what + " features must be shaped (N, D) with N >= 2: generate more samples");
    if (!at::isFloatingType(t.scalar_type())) throw DataError(std::string("KID: the ") + what + " features must be floating point");
    at::Tensor x = t.to(at::kCPU, at::kDouble).contiguous();
    if (!at::isfinite(x).all().item<bool>())
        throw DataError(std::string("KID: the ") + what + " features contain NaN or infinite values; check the feature model");
    return x;
}

// MMD^2_u from the three kernel blocks of one subset (kxx, kyy: m x m; kxy: m x m).
double estimate(const at::Tensor& kxx, const at::Tensor& kyy, const at::Tensor& kxy) {
    const double m = static_cast<double>(kxx.size(0));
    const double xx = kxx.sum().item<double>() - kxx.diagonal().sum().item<double>();
    const double yy = kyy.sum().item<double>() - kyy.diagonal().sum().item<double>();
    const double xy = kxy.sum().item<double>();
    return (xx + yy) / (m * (m - 1)) - 2.0 * xy / (m * m);
}

at::Tensor block(const at::Tensor& gram, const at::Tensor& rows, const at::Tensor& cols) { return gram.index_select(0, rows).index_select(1, cols); }

}  // namespace

double KernelInceptionDistance::mmd2Unbiased(const at::Tensor& x, const at::Tensor& y) {
    const at::Tensor a = checked(x, "first"), b = checked(y, "second");
    if (a.size(0) != b.size(0) || a.size(1) != b.size(1))
        throw DataError("KID: MMD^2 needs two sets of the same shape (got " + std::string(c10::str(a.sizes())) + " and " + std::string(c10::str(b.sizes())) +
                        ")");
    return estimate(kernel(a, a), kernel(b, b), kernel(a, b));
}

KidResult KernelInceptionDistance::compute(const at::Tensor& real, const at::Tensor& fake, int64_t subsets, int64_t subsetSize, uint64_t seed) {
    if (subsets < 1) throw ConfigError("KID: subsets must be at least 1 (got " + std::to_string(subsets) + ")");
    if (subsetSize < 2) throw ConfigError("KID: subset size must be at least 2 (got " + std::to_string(subsetSize) + ")");
    const at::Tensor x = checked(real, "real"), y = checked(fake, "generated");
    if (x.size(1) != y.size(1))
        throw DataError("KID: real features have " + std::to_string(x.size(1)) + " dimensions but generated ones " + std::to_string(y.size(1)) +
                        "; compute both with the same feature model");
    const int64_t n = x.size(0), mRows = y.size(0);
    const int64_t m = std::min({subsetSize, n, mRows});

    KidResult r;
    r.subsets = subsets;
    r.subsetSize = m;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    const bool precompute = n * n + mRows * mRows + n * mRows <= kMaxGramValues;
    at::Tensor kxx, kyy, kxy;
    if (precompute) {
        kxx = kernel(x, x);
        kyy = kernel(y, y);
        kxy = kernel(x, y);
    }
    for (int64_t s = 0; s < subsets; ++s) {
        const at::Tensor ix = at::randperm(n, gen, at::TensorOptions().dtype(at::kLong)).narrow(0, 0, m);
        const at::Tensor iy = at::randperm(mRows, gen, at::TensorOptions().dtype(at::kLong)).narrow(0, 0, m);
        double v;
        if (precompute) {
            v = estimate(block(kxx, ix, ix), block(kyy, iy, iy), block(kxy, ix, iy));
        } else {
            const at::Tensor sx = x.index_select(0, ix), sy = y.index_select(0, iy);
            v = estimate(kernel(sx, sx), kernel(sy, sy), kernel(sx, sy));
        }
        r.values.push_back(v);
    }
    double sum = 0;
    for (double v : r.values) sum += v;
    r.mean = sum / static_cast<double>(subsets);
    double sq = 0;
    for (double v : r.values) sq += (v - r.mean) * (v - r.mean);
    r.std = std::sqrt(sq / static_cast<double>(subsets));
    return r;
}

// QualityMetric "kid": --metric-kid-subsets subsets of the options' size, seeded like the samples.
const FeatureMetric& featureMetricKid() {
    static const FeatureMetric metric{
        "kid", [](const RealFeatures& real, const at::Tensor& fake, const MetricOptions& o) {
            const KidResult k = KernelInceptionDistance::compute(real.features, fake, o.kidSubsets, o.kidSubsetSize, o.seed);
            return nlohmann::json{{"kid", k.mean}, {"kid_std", k.std}, {"kid_subsets", k.subsets}, {"kid_subset_size", k.subsetSize}};
        }};
    return metric;
}

}  // namespace streetgan
