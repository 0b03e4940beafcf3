// The tensors of a latent-walk session (base/latent/LatentSession): keyframe latents, the path and
// the generator input. Kept apart from LatentSession so that the session model stays Torch-free.
// The generator input of a part of the walk (latents(s, nz, pca, from, count)) is computed for those
// frames alone and is bit for bit the same rows of the whole walk's: every step after the path
// (truncation, PCA and named edits) works on each row by itself, with an offset that does not
// depend on the other rows, and both go through the same finish(). The explorer asks for one frame
// per slider step, so an edit costs its frames' latents, not the walk's (issue 44 item 4).
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
    /// Rows from..from+count-1 of latents(s, nz, pca), computed for those frames only (the
    /// keyframes are all drawn and checked, as for the whole walk: K draws, not N frames).
    /// ConfigError when the rows are not within 0..frameCount-1 or count < 1.
    static at::Tensor latents(const LatentSession& s, int64_t nz, const PcaDirections* pca, int64_t from, int64_t count);
    /// z + sum of amount * d / |d| over the named edits (NamedDirectionEdit), the same offset for
    /// every row; z is (nz), (N, nz) or (N, nz, 1, 1). ConfigError naming an edit whose z has
    /// another length than `nz` or no length.
    static at::Tensor applyNamed(const at::Tensor& z, const std::vector<NamedDirectionEdit>& edits, int64_t nz);
    static PcaDirections::Options pcaOptions(const LatentSession& s) { return {s.pcaSamples, s.pcaComponents, s.pcaSeed}; }
    /// The same for a generator with `nz` inputs: ConfigError naming 'pca_components' when it exceeds nz.
    static PcaDirections::Options pcaOptions(const LatentSession& s, int64_t nz);

private:
    /// Truncation, then the PCA edits, then the named edits, on path rows (N, nz, 1, 1).
    static at::Tensor finish(at::Tensor z, const LatentSession& s, int64_t nz, const PcaDirections* pca);
};

}  // namespace streetgan
