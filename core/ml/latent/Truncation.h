// The truncation trick on latent vectors: z' = mean + psi * (z - mean).
// psi = 1 leaves z as it is, psi < 1 pulls it towards the mean (typical, cleaner images, less
// variety), psi = 0 gives the mean itself, psi > 1 exaggerates. The mean is 0 for the standard
// normal prior (the default), or the mean of many sampled z (sampledMean) when a caller wants an
// empirical centre.
// Stateless and thread-safe.
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

#include "base/latent/WalkRule.h"

namespace streetgan {

class Truncation {
public:
    static constexpr double kMinPsi = WalkRule::kMinPsi, kMaxPsi = WalkRule::kMaxPsi;

    /// z: float (..., nz) or (N, nz, 1, 1); mean: undefined (0) or nz elements (broadcast over the
    /// batch). Returns a new tensor shaped and typed like z. Throws ConfigError for psi outside
    /// [kMinPsi, kMaxPsi] or not finite, DataError for a mean of another size.
    static at::Tensor apply(const at::Tensor& z, double psi, const at::Tensor& mean = {});

    /// Mean of `count` standard-normal latents drawn with LatentSeed::draw(seed, nz, count):
    /// float32 (nz) on the CPU. Throws ConfigError for nz < 1 or count < 1.
    static at::Tensor sampledMean(int64_t nz, int64_t count = 10000, uint64_t seed = 0);
};

}  // namespace streetgan
