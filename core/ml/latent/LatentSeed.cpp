#include "ml/latent/LatentSeed.h"

#include <string>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "base/util/Errors.h"

namespace streetgan {

at::Tensor LatentSeed::draw(uint64_t seed, int64_t nz) {
    if (nz < 1) throw ConfigError("latent seed: nz must be at least 1 (got " + std::to_string(nz) + ")");
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    return at::randn({nz}, gen, at::TensorOptions().dtype(at::kFloat));
}

at::Tensor LatentSeed::draw(uint64_t seed, int64_t nz, int64_t count) {
    if (nz < 1) throw ConfigError("latent seed: nz must be at least 1 (got " + std::to_string(nz) + ")");
    if (count < 1) throw ConfigError("latent seed: count must be at least 1 (got " + std::to_string(count) + ")");
    auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
    return at::randn({count, nz, 1, 1}, gen, at::TensorOptions().dtype(at::kFloat));
}

}  // namespace streetgan
