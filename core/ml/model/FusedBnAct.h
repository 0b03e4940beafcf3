// BatchNorm2d in training mode fused with the ReLU / LeakyReLU after it (issue 46 item 2): the
// statistics, then one pass that normalises, applies the affine and the activation; backward is
// one per-channel reduction and one pass for dx (our CUDA kernels, ml/model/cuda/BnActKernels.cu,
// built only in a build with LibTorch CUDA and nvcc). Numerically it is act(bn(x)) with bn in
// training mode: batch statistics, running_mean/running_var/num_batches_tracked updated as
// BatchNorm2d does. Eval mode, the CPU and builds without the kernels use the modules themselves:
// forwardSequential() decides.
#pragma once

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/types.h>

namespace streetgan {

class FusedBnAct {
public:
    /// True only for a CUDA device in a build with the kernels.
    static bool available(const torch::Device& device);
    /// act(bn(x)) in training mode; act is ReLU for negativeSlope 0, else LeakyReLU(negativeSlope).
    /// x: (N, C, H, W) float32, bfloat16 or float16 on CUDA, channels-last or contiguous (anything
    /// else is made contiguous); output in x's dtype and layout. Differentiable in x, bn.weight and
    /// bn.bias, once: a backward with create_graph (a double backward, as an R1 penalty takes through
    /// the discriminator) throws std::logic_error rather than give a wrong gradient. Throws
    /// std::logic_error where available(x.device()) is false.
    static torch::Tensor forward(const torch::Tensor& x, torch::nn::BatchNorm2dImpl& bn, double negativeSlope);
    /// seq's layers on x, where each BatchNorm2d followed by a ReLU or LeakyReLU runs as forward()
    /// when `fuse` and the layer is training and x is on a device available() accepts; every other
    /// layer (and everything when not fusing) runs as the module itself.
    static torch::Tensor forwardSequential(torch::nn::Sequential& seq, torch::Tensor x, bool fuse);
};

}  // namespace streetgan
