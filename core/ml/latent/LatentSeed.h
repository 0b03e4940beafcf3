// Latent vectors drawn from a seed: the contract of docs/cli.md ("a keyframe given by seed draws z from
// the standard normal generator with that seed"). The draw is torch.randn from a fresh CPU
// generator seeded with the seed, exactly like Python's
//     g = torch.Generator().manual_seed(seed); torch.randn(count, nz, generator=g)
// and like torch.manual_seed(seed); torch.randn(count, nz, 1, 1) (the values depend on the element
// count, not the shape). Caution: row 0 of draw(seed, nz, count) is NOT draw(seed, nz) for count > 1:
// PyTorch's CPU normal sampler fills blocks of 16 and redraws the tail, so a vector's values depend
// on the total length drawn. draw(seed, nz) is the keyframe of docs/cli.md's session files;
// draw(seed, nz, count) is what `streetgan-trainer sample --seed S --count K` feeds the generator.
// Stateless and thread-safe (each call uses its own generator; the global RNG is not touched).
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

namespace streetgan {

class LatentSeed {
public:
    /// One latent vector, float32 (nz) on the CPU. Throws ConfigError for nz < 1.
    static at::Tensor draw(uint64_t seed, int64_t nz);
    /// `count` vectors, float32 (count, nz, 1, 1) on the CPU: the generator's input shape.
    /// Throws ConfigError for nz < 1 or count < 1.
    static at::Tensor draw(uint64_t seed, int64_t nz, int64_t count);
};

}  // namespace streetgan
