// Improved precision and recall of a generated distribution (Kynkäänniemi et al. 2019), as
// StyleGAN2-ADA's metrics/precision_recall.py computes it: each set's manifold is the union of
// balls around its points with radius the distance to the point's k-th nearest neighbour within
// the set (the point itself excluded; k = 3 by default);
//   precision = share of generated points inside the real manifold,
//   recall    = share of real points inside the generated manifold.
// "Inside" is distance <= radius. Identical sets give 1 and 1; far-apart sets give 0 and 0.
//
// Numerics: squared Euclidean distances ||a||^2 - 2 a.b + ||b||^2 in float32 GEMMs (the reference
// uses float32 cdist), clamped at 0, in row blocks of at most 16 M distances (64 MB). Cost: about
// 4 N M D flops for sets of N and M rows. Tensors: features float (N, D) of any floating dtype and
// device. Thread contract: stateless; calls may run concurrently.
#pragma once

#include <cstdint>
#include <utility>

#include <ATen/core/Tensor.h>

namespace streetgan {

struct PrecisionRecallResult {
    double precision = 0;  ///< in [0, 1]
    double recall = 0;     ///< in [0, 1]
    int64_t k = 3;         ///< neighbourhood size used
};

class PrecisionRecall {
public:
    /// Both sets need more than k rows and the same D. Throws DataError otherwise (or for
    /// non-finite values), ConfigError for k < 1.
    static PrecisionRecallResult compute(const at::Tensor& real, const at::Tensor& fake, int64_t k = 3);
    /// Squared distance from each row of `points` to its k-th nearest other row: float32 (N,).
    static at::Tensor kthNeighbourRadiiSquared(const at::Tensor& points, int64_t k);
    /// Share of `probes` rows within the squared radius of at least one `manifold` row.
    static double coverage(const at::Tensor& manifold, const at::Tensor& radiiSquared, const at::Tensor& probes);
    /// Density and coverage (Naeem et al. 2020, "Reliable fidelity and diversity metrics for
    /// generative models"), on the real set's k-NN balls (k = 5 in the paper): density = the mean
    /// number of real balls a generated point lies in, divided by k (about 1 for matching sets,
    /// above 1 where generated points crowd dense real regions); coverage = the share of real
    /// points whose ball holds at least one generated point (in [0, 1]; unlike recall, robust to
    /// generated outliers). Same requirements and errors as compute().
    static std::pair<double, double> densityCoverage(const at::Tensor& real, const at::Tensor& fake, int64_t k = 5);
};

}  // namespace streetgan
