// Architecture hyperparameters of a DCGAN generator/discriminator pair.
#pragma once

#include <cstdint>
#include <string>

namespace streetgan {

struct ModelConfig {
    std::string preset = "custom";  ///< preset name this config came from, or "custom"
    int64_t nz = 100;               ///< latent vector length
    int64_t ngf = 64;               ///< generator feature maps at the last hidden stage
    int64_t ndf = 64;               ///< discriminator feature maps at the first stage
    int64_t nc = 3;                 ///< image channels
    int64_t imgSize = 64;           ///< square output edge in pixels: 32, 64, 128 or 256

    /// Number of stride-2 stages between the 4x4 base and imgSize (64 px: 4, 128 px: 5).
    int stages() const;
    /// Throws ConfigError naming the first invalid field.
    void validate() const;
    bool sameArchitecture(const ModelConfig& o) const { return nz == o.nz && ngf == o.ngf && ndf == o.ndf && nc == o.nc && imgSize == o.imgSize; }
};

}  // namespace streetgan
