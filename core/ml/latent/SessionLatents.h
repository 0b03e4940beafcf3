// The tensors of a latent-walk session (base/latent/LatentSession): keyframe latents, the path and
// the generator input. Kept apart from LatentSession so that the session model stays Torch-free.
// Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "base/latent/LatentSession.h"
#include "ml/latent/LatentPath.h"
#include "ml/latent/PcaDirections.h"

namespace streetgan {

class SessionLatents {
public:
    /// Keyframe latents for a generator with `nz` inputs: float32 (nz) each. ConfigError when an
    /// explicit z has another length.
    static std::vector<at::Tensor> keyframeLatents(const LatentSession& s, int64_t nz);
    static LatentPath path(const LatentSession& s, int64_t nz);
    /// The final generator input, float32 (N, nz, 1, 1) on the CPU: path frames, then truncation
    /// towards 0, then the PCA direction edits, then the named direction edits. `pca` may be null
    /// when `directions` is empty (ConfigError otherwise).
    static at::Tensor latents(const LatentSession& s, int64_t nz, const PcaDirections* pca);
    /// z + sum of amount * d / |d| over the named edits (NamedDirectionEdit), the same offset for
    /// every row; z is (nz), (N, nz) or (N, nz, 1, 1). ConfigError naming an edit whose z has
    /// another length than `nz` or no length.
    static at::Tensor applyNamed(const at::Tensor& z, const std::vector<NamedDirectionEdit>& edits, int64_t nz);
    static PcaDirections::Options pcaOptions(const LatentSession& s) { return {s.pcaSamples, s.pcaComponents, s.pcaSeed}; }
};

}  // namespace streetgan
