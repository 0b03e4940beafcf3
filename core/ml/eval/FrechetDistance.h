// Fréchet Inception Distance between two feature sets (Heusel et al. 2017):
//   FID = ||mu1 - mu2||^2 + Tr(S1 + S2 - 2 sqrt(S1 S2))
// with mu the feature means and S the covariances (numpy.cov: divisor N - 1), the formula of
// pytorch-fid and clean-fid. Tr sqrt(S1 S2) is computed without a general matrix square root:
// S1 S2 is similar to the symmetric PSD matrix A = sqrt(S1) S2 sqrt(S1), so the trace is the sum
// of the square roots of A's eigenvalues (two symmetric eigendecompositions, float64, clamped at 0
// against rounding). On well-conditioned covariances this equals the trace of SciPy's
// scipy.linalg.sqrtm(S1 @ S2) (what clean-fid uses) to rounding; on singular ones (fewer samples
// than feature dimensions) it stays real and finite where sqrtm needs clean-fid's eps * I retry.
//
// Tensors: features float (N, D) of any floating dtype, on any device (copied to the CPU as
// float64). Cost: N D^2 flops per covariance plus two D x D eigendecompositions (D = 2048: a few
// seconds on two CPU cores). Thread contract: stateless; calls may run concurrently.
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

namespace streetgan {

struct FeatureStatistics {
    at::Tensor mu;      ///< float64 (D,) on the CPU
    at::Tensor sigma;   ///< float64 (D, D) on the CPU, covariance with divisor count - 1
    int64_t count = 0;  ///< feature rows the statistics came from
};

class FrechetDistance {
public:
    /// Mean and covariance of `features` (N, D), N >= 2. Throws DataError for fewer rows, a
    /// non-floating dtype or non-finite values.
    static FeatureStatistics statistics(const at::Tensor& features);
    /// The FID between two sets of statistics of the same D (DataError otherwise). Non-negative up
    /// to rounding; never NaN for finite input.
    static double distance(const FeatureStatistics& a, const FeatureStatistics& b);
    /// Tr sqrt(S1 S2) for symmetric PSD (D, D) matrices, by the eigenvalue route above.
    static double traceSqrtProduct(const at::Tensor& s1, const at::Tensor& s2);
};

}  // namespace streetgan
