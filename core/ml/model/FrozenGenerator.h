// An immutable, inference-only copy of a DCGAN generator in eval mode, for serving many renders at
// once (serve) and the explorer's bfloat16 preview (FrameRenderer, RenderPrecision). The same
// function as Generator::forward in eval mode (BatchNorm with running statistics), computed
// differently for speed on the CPU:
// - each BatchNorm is folded into the transposed convolution before it (w' = w * gamma / sqrt(var +
//   eps) per output channel, bias = beta - mean * gamma / sqrt(var + eps));
// - the first layer (4x4 kernel on a 1x1 input) is one matrix product;
// - every stride-2, 4x4, padding-1 transposed convolution with more than 8 output channels is
//   computed as its four sub-pixel phases, each an ordinary 2x2 convolution (oneDNN's conv2d
//   instead of LibTorch's per-image im2col path for transposed convolutions), interleaved into the
//   2x upsampled output; narrower layers (the RGB output) keep at::conv_transpose2d.
// Results equal Generator::forward to float rounding (about 1e-6 absolute on [-1, 1]); they are
// deterministic for a given input and number of intra-op threads.
// Precision::BFloat16 (opt-in) runs the sub-pixel convolutions and the first layer in bfloat16
// (oneDNN; about 3x faster on CPUs with AVX512-BF16/AMX, emulated and slower on plain AVX-512,
// refused without AVX-512): pixels move by a few levels of 255, still deterministic. Its phase
// weights are reordered once, here, into oneDNN's blocked layout (mkldnn_reorder_conv2d_weight)
// and run by mkldnn_convolution: at::conv2d would reorder them on every call, which for msls-128's
// 67 MB of bfloat16 weights cost more than the arithmetic (a frame 33 ms against 20 ms on one
// core; bench/README.md, "Explore worker"). Same oneDNN kernel, so the same values; where this
// LibTorch cannot run the packed weights the plain conv2d route is used.
//
// Thread contract: const after construction; forward() may run concurrently from any number of
// threads (it only reads the weights, which it owns as CPU tensors). Needs no autograd:
// forward() runs under c10::InferenceMode itself.
#pragma once

#include <vector>

#include <ATen/core/Tensor.h>

#include "base/model/ModelConfig.h"
#include "ml/model/Generator.h"

namespace streetgan {

class FrozenGenerator {
public:
    /// Copies and folds the weights of `g` (any device; its BatchNorm running statistics are used
    /// whatever mode it is in). Throws ConfigError for a generator whose layers are not the DCGAN
    /// layout of model/Generator.h.
    enum class Precision { Float32, BFloat16 };

    /// Throws ConfigError when BFloat16 is asked for on a CPU whose oneDNN cannot run it.
    explicit FrozenGenerator(const Generator& g, Precision precision = Precision::Float32);

    /// z: float (N, nz) or (N, nz, 1, 1) on the CPU -> images (N, nc, imgSize, imgSize) in [-1, 1].
    /// Throws DataError for another shape.
    at::Tensor forward(const at::Tensor& z) const;

    const ModelConfig& config() const { return cfg_; }
    Precision precision() const { return compute_ == at::kFloat ? Precision::Float32 : Precision::BFloat16; }

private:
    struct Layer {
        enum class Kind { Dense, Phases, Transposed } kind = Kind::Transposed;
        at::Tensor weight;               ///< Dense: (nz, Cout*16); Transposed: (Cin, Cout, k, k)
        std::vector<at::Tensor> phases;  ///< Phases: four (Cout, Cin, 2, 2), order (a, b) = 00, 01, 10, 11
        std::vector<at::Tensor> packed;  ///< Phases in bfloat16: the four in oneDNN's layout, or empty
        at::Tensor bias;                 ///< (Cout), or undefined
        int64_t outChannels = 0, kernel = 4, stride = 1, padding = 0;
        enum class Activation { Relu, Tanh, None } activation = Activation::None;
    };
    ModelConfig cfg_;
    at::ScalarType compute_ = at::kFloat;
    std::vector<Layer> layers_;
};

}  // namespace streetgan
