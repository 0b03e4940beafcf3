// Interpretable latent directions, GANSpace style (Härkönen et al. 2020):
// 1. draw `samples` latents z_j ~ N(0, I) with LatentSeed::draw(seed, nz, samples);
// 2. run the generator's first block on them (ConvTranspose(nz -> C, 4, 1, 0), BatchNorm with its
//    running statistics, ReLU: the eval-mode activations, flattened to C*4*4 features);
// 3. PCA of those activations (centred; via the smaller of the two Gram matrices, in float64): the
//    top-k principal axes v_k and each sample's coordinates x_jk = <a_j - mean, v_k>;
// 4. map every component back to z by least squares, as GANSpace does: u_k = argmin_u
//    sum_j |x_jk u - (z_j - mean z)|^2 = sum_j x_jk (z_j - mean z) / sum_j x_jk^2 (the columns of
//    X are orthogonal, so the multivariate least squares decouples per component);
// 5. orthonormalise u_1..u_k in order (Gram-Schmidt through QR, each keeping the sign of its u_k),
//    so direction 0 is the one that explains most activation variance;
// 6. sigma_k = the standard deviation of <z_j, d_k> over the samples (≈ 1 for the N(0, I) prior):
//    apply(z, {k, amount}) moves z by amount * sigma_k along d_k, so amounts are in prior sigmas.
// fromSamples() runs steps 3-6 on any activations (it is what the synthetic tests check).
//
// Results are cached per checkpoint: cached() keeps a small file named after the checkpoint's
// SHA-256 and the options in a cache directory (default $XDG_CACHE_HOME/streetgan/directions or
// ~/.cache/streetgan/directions); it is written atomically, and a cache that cannot be written is
// not an error (the directions are simply recomputed next time).
//
// Thread contract: a PcaDirections is immutable after construction and may be shared between
// threads. compute()/cached() run the generator: one thread per Generator (LibTorch modules are
// not thread-safe); they run under NoGradGuard on the generator's device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "base/latent/DirectionEdit.h"
#include "ml/model/Generator.h"

namespace streetgan {

class PcaDirections {
public:
    struct Options {
        int64_t samples = 2000;  ///< latents drawn (>= components + 1, <= 100000)
        int components = 10;     ///< k: directions kept (1 .. nz)
        uint64_t seed = 0;       ///< seed of the sampled latents
    };

    PcaDirections() = default;
    /// directions: float32 (k, nz), orthonormal rows; sigma: float32 (k). Throws DataError when the
    /// shapes disagree.
    PcaDirections(const at::Tensor& directions, const at::Tensor& sigma);

    /// Steps 1-6 with `g` (its first block only; any device). ConfigError for bad options.
    static PcaDirections compute(const Generator& g, const Options& options);
    /// Steps 3-6: activations (N, D) and the latents z (N, nz) (or (N, nz, 1, 1)) they came from.
    /// Throws ConfigError for k < 1, k > nz or k >= N; DataError for mismatched rows.
    static PcaDirections fromSamples(const at::Tensor& activations, const at::Tensor& z, int components);
    /// The first block's eval-mode activations of z: float32 (N, C*4*4) on the CPU.
    static at::Tensor firstBlockActivations(const Generator& g, const at::Tensor& z);

    /// compute(), or its cached result for the checkpoint with SHA-256 `checkpointSha256` from
    /// `cacheDir` (empty: defaultCacheDir()).
    static PcaDirections cached(const Generator& g, const std::string& checkpointSha256, const Options& options, const std::string& cacheDir = "");
    static std::string defaultCacheDir();

    int components() const { return directions_.defined() ? static_cast<int>(directions_.size(0)) : 0; }
    int64_t nz() const { return directions_.defined() ? directions_.size(1) : 0; }
    const at::Tensor& directions() const { return directions_; }  ///< float32 (k, nz)
    const at::Tensor& sigma() const { return sigma_; }            ///< float32 (k)

    /// z + sum over edits of amount * sigma[index] * directions[index]; z is (nz), (N, nz) or
    /// (N, nz, 1, 1) (the same offset is added to every row); the result has z's shape and dtype.
    /// Throws ConfigError naming an index outside 0..k-1 or a non-finite amount, DataError for
    /// latents of another nz.
    at::Tensor apply(const at::Tensor& z, const std::vector<DirectionEdit>& edits) const;

    /// Writes / reads the pair as a torch pickle (AtomicFile; IoError / DataError naming the path).
    void save(const std::string& path) const;
    static PcaDirections load(const std::string& path);

private:
    at::Tensor directions_, sigma_;
};

}  // namespace streetgan
