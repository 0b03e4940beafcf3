#include "ml/latent/Truncation.h"

#include <cmath>
#include <string>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/latent/LatentSeed.h"

namespace streetgan {

at::Tensor Truncation::apply(const at::Tensor& z, double psi, const at::Tensor& mean) {
    if (!std::isfinite(psi) || psi < kMinPsi || psi > kMaxPsi)
        throw ConfigError("truncation psi must be within 0..2 (1 = none; got " + std::to_string(psi) + ")");
    if (!z.defined() || z.dim() < 1) throw DataError("truncation: expected latent vectors (N, nz[, 1, 1])");
    if (!mean.defined()) return z * psi;
    // Find the nz axis: the last one, or axis 1 of (N, nz, 1, 1).
    const bool nchw = z.dim() == 4;
    const int64_t nz = nchw ? z.size(1) : z.size(-1);
    if (mean.numel() != nz)
        throw DataError("truncation: the mean has " + std::to_string(mean.numel()) + " values but the latents have nz=" + std::to_string(nz));
    at::Tensor m = mean.detach().to(z.device(), z.scalar_type()).reshape(nchw ? std::vector<int64_t>{1, nz, 1, 1} : std::vector<int64_t>{nz});
    return m + (z - m) * psi;
}

at::Tensor Truncation::sampledMean(int64_t nz, int64_t count, uint64_t seed) { return LatentSeed::draw(seed, nz, count).reshape({count, nz}).mean(0); }

}  // namespace streetgan
