#include "ml/eval/ParzenWindow.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <ATen/ATen.h>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

// About 32 MB of float64 per block of mu converted at a time, and at most 128 MB of distances.
constexpr int64_t kMuBlockValues = int64_t{4} << 20;
constexpr int64_t kMaxDistanceValues = int64_t{16} << 20;
constexpr double kPi = 3.14159265358979323846;

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// (N, ...) -> (N, d), after checking what the evaluation needs.
at::Tensor flatRows(const at::Tensor& t, const char* what) {
    if (!t.defined() || t.dim() < 1 || t.size(0) < 1 || t.numel() == 0)
        throw DataError(std::string("Parzen window: the ") + what + " set is empty; pass at least one image shaped (N, C, H, W)");
    if (!at::isFloatingType(t.scalar_type()))
        throw DataError(std::string("Parzen window: the ") + what + " images must be floating point in [0, 1]; convert them with .to(kFloat).div(255)");
    return t.reshape({t.size(0), -1});
}

void checkSameSize(const at::Tensor& mu, const at::Tensor& x, const char* what) {
    if (mu.size(1) != x.size(1))
        throw DataError(std::string("Parzen window: ") + what + " images have " + std::to_string(x.size(1)) + " values each but the generated samples have " +
                        std::to_string(mu.size(1)) + "; use the same image size and channels for both");
}

// Row-wise squared norms of a float64 (r, d) matrix as r dot products: no (r, d) temporary.
at::Tensor rowSquaredNorms(const at::Tensor& m) { return at::bmm(m.unsqueeze(1), m.unsqueeze(2)).view({m.size(0)}); }

// log p(x_j) for every row of x and every sigma: float64 (M, S) on the CPU, or an undefined tensor
// when cancelled. onRows(k) is told after each batch of k rows.
// Every large buffer is allocated once and reused: repeated same-sized allocations of tens of MB
// make glibc's malloc raise its mmap threshold and then keep hundreds of MB of freed heap.
at::Tensor logLikelihoods(const at::Tensor& mu, const at::Tensor& x, const std::vector<double>& sigmas, int batchSize, const char* what,
                          const std::function<void(int64_t)>& onRows, const std::atomic<bool>* cancel) {
    const int64_t n = mu.size(0), d = mu.size(1), m = x.size(0);
    const int64_t blockRows = std::min(n, std::max<int64_t>(1, kMuBlockValues / d));
    const int64_t batch = std::min(m, std::max<int64_t>(1, std::min<int64_t>(batchSize, kMaxDistanceValues / n)));
    const auto dopts = mu.options().dtype(at::kDouble);

    // ||mu_i||^2 in float64, block by block; this also proves every value of mu finite.
    at::Tensor muBuf = at::empty({blockRows, d}, dopts);
    at::Tensor muSq = at::empty({n}, dopts);
    for (int64_t s = 0; s < n; s += blockRows) {
        if (cancelled(cancel)) return {};
        const int64_t r = std::min(blockRows, n - s);
        at::Tensor block = muBuf.narrow(0, 0, r).copy_(mu.narrow(0, s, r));
        muSq.narrow(0, s, r).copy_(rowSquaredNorms(block));
    }
    if (!at::isfinite(muSq).all().item<bool>()) throw DataError("Parzen window: the generated samples contain NaN or infinite values; check the generator");

    // Per sigma: the factor on squared distances and the constant log N + d log(sigma sqrt(2 pi)).
    std::vector<double> scale, offset;
    for (double s : sigmas) {
        scale.push_back(-1.0 / (2.0 * s * s));
        offset.push_back(std::log(static_cast<double>(n)) + static_cast<double>(d) * std::log(s * std::sqrt(2.0 * kPi)));
    }

    at::Tensor out = at::empty({m, static_cast<int64_t>(sigmas.size())}, at::TensorOptions().dtype(at::kDouble));
    at::Tensor xBuf = at::empty({batch, d}, dopts);
    at::Tensor distBuf = at::empty({batch, n}, dopts);
    at::Tensor expBuf = at::empty({batch, n}, dopts);
    for (int64_t start = 0; start < m; start += batch) {
        if (cancelled(cancel)) return {};
        const int64_t b = std::min(batch, m - start);
        at::Tensor xb = xBuf.narrow(0, 0, b).copy_(x.narrow(0, start, b));
        at::Tensor xSq = rowSquaredNorms(xb);
        if (!at::isfinite(xSq).all().item<bool>())
            throw DataError(std::string("Parzen window: the ") + what + " images contain NaN or infinite values; check the data source");
        at::Tensor dist = distBuf.narrow(0, 0, b);
        for (int64_t s = 0; s < n; s += blockRows) {
            if (cancelled(cancel)) return {};
            const int64_t r = std::min(blockRows, n - s);
            at::Tensor muBlock = muBuf.narrow(0, 0, r).copy_(mu.narrow(0, s, r));
            at::Tensor block = dist.narrow(1, s, r);
            // ||x||^2 - 2 x.mu + ||mu||^2, clamped at 0 against rounding; written in place.
            at::mm_out(block, xb, muBlock.t());
            block.mul_(-2.0).add_(xSq.unsqueeze(1)).add_(muSq.narrow(0, s, r).unsqueeze(0)).clamp_min_(0.0);
        }
        for (size_t k = 0; k < sigmas.size(); ++k) {
            // Stable logsumexp: subtract the row maximum, so far-apart points stay finite.
            at::Tensor a = expBuf.narrow(0, 0, b).copy_(dist).mul_(scale[k]);
            at::Tensor rowMax = a.amax({1}, /*keepdim=*/true);
            at::Tensor ll = a.sub_(rowMax).exp_().sum(1).log_().add_(rowMax.squeeze(1)).sub_(offset[k]);
            out.narrow(0, start, b).select(1, static_cast<int64_t>(k)).copy_(ll);
        }
        if (onRows) onRows(b);
    }
    return out;
}

void checkBatch(int batchSize) {
    if (batchSize < 1) throw ConfigError("Parzen window: batch size must be at least 1 (got " + std::to_string(batchSize) + ")");
}

}  // namespace

std::vector<double> ParzenWindow::sigmaGrid() {
    // numpy.logspace(-1, 0, 10): 10 ** (k * (1 / 9) - 1), the last exponent exactly 0.
    std::vector<double> out;
    const int num = 10;
    const double start = -1.0, stop = 0.0, step = (stop - start) / (num - 1);
    for (int k = 0; k < num; ++k) {
        double e = k == num - 1 ? stop : static_cast<double>(k) * step + start;
        out.push_back(std::pow(10.0, e));
    }
    return out;
}

at::Tensor ParzenWindow::logLikelihood(const at::Tensor& mu, const at::Tensor& x, double sigma, int batchSize) {
    checkBatch(batchSize);
    if (!(sigma > 0) || !std::isfinite(sigma)) throw ConfigError("Parzen window: sigma must be a positive number (got " + std::to_string(sigma) + ")");
    at::Tensor m = flatRows(mu, "generated");
    at::Tensor xs = flatRows(x, "evaluation");
    checkSameSize(m, xs, "evaluation");
    return logLikelihoods(m, xs, {sigma}, batchSize, "evaluation", {}, nullptr).select(1, 0).contiguous();
}

ParzenResult ParzenWindow::evaluate(const at::Tensor& samples, const at::Tensor& validation, const at::Tensor& test, int batchSize,
                                    std::function<void(double)> progress, const std::atomic<bool>* cancel) {
    checkBatch(batchSize);
    at::Tensor mu = flatRows(samples, "generated");
    at::Tensor val = flatRows(validation, "validation");
    at::Tensor tst = flatRows(test, "test");
    checkSameSize(mu, val, "validation");
    checkSameSize(mu, tst, "test");

    const double nan = std::numeric_limits<double>::quiet_NaN();
    ParzenResult result;
    auto stop = [&] {
        result = ParzenResult{};
        result.sigma = result.meanLogLikelihood = result.stdError = nan;
        result.cancelled = true;
        return result;
    };

    const double total = static_cast<double>(val.size(0) + tst.size(0));
    int64_t done = 0;
    auto onRows = [&](int64_t k) {
        done += k;
        if (progress) progress(std::min(1.0, static_cast<double>(done) / total));
    };
    if (progress) progress(0.0);

    // Every grid sigma in one pass over the validation set: the distances do not depend on sigma.
    const std::vector<double> grid = sigmaGrid();
    at::Tensor valLl = logLikelihoods(mu, val, grid, batchSize, "validation", onRows, cancel);
    if (!valLl.defined()) return stop();
    at::Tensor means = valLl.mean(0);
    size_t best = 0;
    for (size_t k = 0; k < grid.size(); ++k) {
        const double score = means[static_cast<int64_t>(k)].item<double>();
        result.sigmaScores.emplace_back(grid[k], score);
        if (score > result.sigmaScores[best].second) best = k;  // numpy.argmax: first maximum
    }
    result.sigma = grid[best];

    at::Tensor testLl = logLikelihoods(mu, tst, {result.sigma}, batchSize, "test", onRows, cancel);
    if (!testLl.defined()) return stop();
    testLl = testLl.select(1, 0);
    result.meanLogLikelihood = testLl.mean().item<double>();
    // numpy's ll.std() (ddof 0): sqrt(mean(|x - mean|^2)), spelled out (Tensor::std's overloads differ
    // between LibTorch versions).
    const double spread = std::sqrt((testLl - result.meanLogLikelihood).pow(2).mean().item<double>());
    result.stdError = spread / std::sqrt(static_cast<double>(tst.size(0)));
    return result;
}

}  // namespace streetgan
