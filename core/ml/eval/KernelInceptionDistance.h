// Kernel Inception Distance (Bińkowski et al. 2018) as clean-fid and torch-fidelity compute it:
// the unbiased estimate of MMD^2 with the cubic polynomial kernel k(x, y) = (x.y / D + 1)^3,
//   MMD^2_u = sum_{i!=j} k(x_i,x_j) / (m(m-1)) + sum_{i!=j} k(y_i,y_j) / (m(m-1)) - 2 sum_{i,j} k(x_i,y_j) / m^2,
// over `subsets` random subsets of m = subsetSize rows drawn without replacement from each set;
// the result is the mean over subsets and their std (numpy.std, ddof 0) as torch-fidelity reports.
// subsetSize is clamped to the smaller set (clean-fid does the same), so small sample counts
// still give an estimate; with subsetSize equal to both set sizes every subset is the whole set.
//
// Numerics: float64 throughout. When the three Gram matrices fit in about 256 MB (both sets of
// up to ~3,000 rows) they are computed once and subsets are summed from them; otherwise each
// subset costs 3 m^2 D flops. Subsets are drawn from a CPU generator seeded with `seed`, so a
// result is reproducible (numbers differ from clean-fid's numpy draws by subset sampling only).
// Tensors: features float (N, D) of any floating dtype and device. Thread contract: stateless.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace streetgan {

struct KidResult {
    double mean = 0;             ///< mean of MMD^2_u over subsets
    double std = 0;              ///< numpy.std (ddof 0) of MMD^2_u over subsets
    int64_t subsets = 0;         ///< subsets averaged
    int64_t subsetSize = 0;      ///< rows per subset after clamping
    std::vector<double> values;  ///< MMD^2_u of each subset
};

class KernelInceptionDistance {
public:
    /// KID of `real` (N, D) vs `fake` (M, D); N, M >= 2. Defaults are clean-fid's / torch-fidelity's
    /// (100 subsets of 1000). Throws DataError for fewer than 2 rows, different D or non-finite
    /// values, ConfigError for subsets < 1 or subsetSize < 2.
    static KidResult compute(const at::Tensor& real, const at::Tensor& fake, int64_t subsets = 100, int64_t subsetSize = 1000, uint64_t seed = 0);
    /// MMD^2_u of two sets of the same size m >= 2 (the estimator above, one subset).
    static double mmd2Unbiased(const at::Tensor& x, const at::Tensor& y);
};

}  // namespace streetgan
