// Gaussian Parzen-window log-likelihood, the evaluation of Goodfellow et al.'s GAN paper
// (parzen_ll.py) that the reference project reproduced:
//   log p(x) = logsumexp_i(-||x - mu_i||^2 / (2 sigma^2)) - log N - d * log(sigma * sqrt(2 pi))
// with mu_1..mu_N the generated samples and d the number of values per image. Sigma is chosen on a
// validation set of real images from numpy.logspace(-1, 0, 10) (highest mean log-likelihood, the
// first one on a tie); the test set's mean log-likelihood and its standard error
// (numpy std with ddof 0 / sqrt(n)) are reported under that sigma. Units: nats per image.
//
// Value range: the sigma grid 0.1 ... 1 is meant for pixels in [0, 1]; callers pass generated and
// real images in [0, 1] (a generator's Tanh output x maps to (x + 1) / 2), all with the same shape.
// Tensors: (N, ...) of any floating dtype and device, flattened inside to (N, d); distances are
// computed in float64 as ||x||^2 - 2 x.mu + ||mu||^2 (clamped at 0), in batches of `batchSize`
// rows of x (at most 16 M distances) and blocks of about 4 M values of mu, with buffers reused, so
// memory beyond the inputs stays near 2 * batchSize * N + batchSize * d + 4 M doubles: about 60 MB
// for 10,000 samples of 64x64x3 and the default batch. Cost: 2 * N * d flops per image of x (one
// pass covers every grid sigma), float64 GEMM, so use an optimised BLAS (OpenBLAS/MKL).
// Thread contract: stateless; calls may run concurrently on different threads. `progress` is
// called on the calling thread; `cancel` may be set from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

namespace streetgan {

struct ParzenResult {
    double sigma = 0;                                    ///< the sigma chosen on the validation set
    double meanLogLikelihood = 0;                        ///< mean log p(x) over the test set, nats per image
    double stdError = 0;                                 ///< std (ddof 0) of the test log-likelihoods / sqrt(test count)
    std::vector<std::pair<double, double>> sigmaScores;  ///< (sigma, mean validation log p) per grid sigma
    bool cancelled = false;                              ///< the cancel flag was seen: the numbers above are NaN, sigmaScores empty
};

class ParzenWindow {
public:
    /// numpy.logspace(-1, 0, 10): 0.1 ... 1, ten values evenly spaced in log10.
    static std::vector<double> sigmaGrid();

    /// Cross-validates sigma on `validation`, then scores `test` (see the header comment).
    /// samples: generated images (N, ...); validation, test: real images (M, ...) with the same
    /// values per image. batchSize: rows of x per batch, a memory knob only (results do not depend
    /// on it). progress (optional) receives the fraction done, 0..1, after each batch. cancel
    /// (optional) is polled between blocks; once true, evaluate returns early with cancelled set.
    /// Throws DataError for empty sets, mismatched image sizes, non-floating or non-finite values;
    /// ConfigError for batchSize < 1.
    static ParzenResult evaluate(const at::Tensor& samples, const at::Tensor& validation, const at::Tensor& test, int batchSize = 100,
                                 std::function<void(double fraction)> progress = {}, const std::atomic<bool>* cancel = nullptr);

    /// log p(x_j) for every row of x under the window on mu with this sigma: float64 (M,) on the CPU.
    /// Throws like evaluate, and ConfigError for sigma <= 0 or not finite.
    static at::Tensor logLikelihood(const at::Tensor& mu, const at::Tensor& x, double sigma, int batchSize = 100);
};

}  // namespace streetgan
