#include "ml/model/FusedBnAct.h"

#include <torch/nn/modules/activation.h>

#include <stdexcept>
#include <string>

// STREETGAN_HAVE_CUDA_KERNELS: set by the build for this file alone where LibTorch has CUDA and
// nvcc is found (core/ml/CMakeLists.txt); the kernels' launchers then exist in streetgan_ml.
#ifdef STREETGAN_HAVE_CUDA_KERNELS
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/autograd/custom_function.h>

#include "ml/model/cuda/BnActKernels.h"
#endif

namespace streetgan {

namespace {

bool fusableDtype(at::ScalarType t) { return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf; }

#ifdef STREETGAN_HAVE_CUDA_KERNELS

BnActKernels::Dtype kernelDtype(at::ScalarType t) {
    if (t == at::kBFloat16) return BnActKernels::Dtype::BFloat16;
    if (t == at::kHalf) return BnActKernels::Dtype::Float16;
    return BnActKernels::Dtype::Float32;
}

// Channels-last only where it differs from contiguous (C == 1 or H * W == 1 are both at once).
at::MemoryFormat layoutOf(const at::Tensor& x) {
    return !x.is_contiguous() && x.is_contiguous(at::MemoryFormat::ChannelsLast) ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
}

BnActKernels::Shape shapeOf(const at::Tensor& x, at::MemoryFormat f) {
    return {x.size(0), x.size(1), x.size(2) * x.size(3), f == at::MemoryFormat::ChannelsLast};
}

const float* floatPtr(const at::Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; }

void* currentStream(const at::Tensor& x) { return c10::cuda::getCurrentCUDAStream(x.device().index()).stream(); }

// The autograd node: inputs x, weight, bias (the last two may be undefined: no affine) and the
// batch's mean and invstd (float32, computed without grad by the caller). Saves x, not y: the
// activation's side is recomputed in backward from x, so y can be freed or written over.
struct BnActAutograd : public torch::autograd::Function<BnActAutograd> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                              const at::Tensor& mean, const at::Tensor& invstd, double slope) {
        const at::MemoryFormat f = layoutOf(x);
        at::Tensor y = at::empty(x.sizes(), x.options(), f);
        const BnActKernels::Channels ch{floatPtr(mean), floatPtr(invstd), floatPtr(weight), floatPtr(bias)};
        BnActKernels::forward(x.data_ptr(), y.data_ptr(), kernelDtype(x.scalar_type()), shapeOf(x, f), ch, static_cast<float>(slope), currentStream(x));
        ctx->save_for_backward({x, weight, bias, mean, invstd});
        ctx->saved_data["slope"] = slope;
        return y;
    }

    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
        // Our backward is raw kernels: a gradient of it (create_graph, as an R1 penalty asks) would be silently missing.
        if (at::GradMode::is_enabled())
            throw std::logic_error("FusedBnAct: no double backward (create_graph, e.g. the R1 penalty): train without --fused-bn-act");
        const auto saved = ctx->get_saved_variables();
        const at::Tensor& x = saved[0];
        const at::Tensor& weight = saved[1];
        const at::Tensor& bias = saved[2];
        const double slope = ctx->saved_data["slope"].toDouble();
        if (!grads[0].defined()) return {at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
        const c10::cuda::CUDAGuard guard(x.device());
        const at::MemoryFormat f = layoutOf(x);
        const at::Tensor dy = grads[0].to(x.scalar_type()).contiguous(f);
        const BnActKernels::Channels ch{floatPtr(saved[3]), floatPtr(saved[4]), floatPtr(weight), floatPtr(bias)};
        const auto opts = x.options().dtype(at::kFloat);
        at::Tensor sumG = at::zeros({x.size(1)}, opts);
        at::Tensor sumGXhat = at::zeros({x.size(1)}, opts);
        const BnActKernels::Shape s = shapeOf(x, f);
        const auto dt = kernelDtype(x.scalar_type());
        void* stream = currentStream(x);
        BnActKernels::backwardReduce(dy.data_ptr(), x.data_ptr(), dt, s, ch, static_cast<float>(slope), sumG.data_ptr<float>(), sumGXhat.data_ptr<float>(),
                                     stream);
        at::Tensor dx = at::empty(x.sizes(), x.options(), f);
        BnActKernels::backwardApply(dy.data_ptr(), x.data_ptr(), dx.data_ptr(), dt, s, ch, static_cast<float>(slope), sumG.data_ptr<float>(),
                                    sumGXhat.data_ptr<float>(), stream);
        return {dx, weight.defined() ? sumGXhat : at::Tensor(), bias.defined() ? sumG : at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    }
};

// running_mean/running_var/num_batches_tracked as BatchNorm2d's training forward updates them:
// momentum from its options, or the cumulative average (1 / batches) without one (that reads the
// count back to the host, as LibTorch's own BatchNorm does); the running variance unbiased.
void updateRunningStats(torch::nn::BatchNorm2dImpl& bn, const at::Tensor& x, const at::Tensor& mean, const at::Tensor& invstd) {
    if (!bn.options.track_running_stats()) return;
    bn.num_batches_tracked.add_(1);
    const double momentum = bn.options.momentum() ? *bn.options.momentum() : 1.0 / static_cast<double>(bn.num_batches_tracked.item<int64_t>());
    const int64_t perChannel = x.numel() / x.size(1);  // N * H * W, exact
    const at::Tensor counts = at::full({1}, static_cast<double>(perChannel), mean.options());
    at::batch_norm_gather_stats_with_counts(x, mean.unsqueeze(0), invstd.unsqueeze(0), bn.running_mean, bn.running_var, momentum, bn.options.eps(), counts);
}

#endif

}  // namespace

bool FusedBnAct::available(const torch::Device& device) {
#ifdef STREETGAN_HAVE_CUDA_KERNELS
    return device.is_cuda();
#else
    (void)device;
    return false;
#endif
}

torch::Tensor FusedBnAct::forward(const torch::Tensor& x, torch::nn::BatchNorm2dImpl& bn, double negativeSlope) {
    if (!available(x.device()))
        throw std::logic_error("FusedBnAct::forward: needs a CUDA tensor in a build with its kernels (the cuda preset), got one on " + x.device().str() +
                               "; use the BatchNorm2d module there");
    if (x.dim() != 4 || !fusableDtype(x.scalar_type()))
        throw std::invalid_argument("FusedBnAct::forward: needs (N, C, H, W) float32, bfloat16 or float16, got " + std::to_string(x.dim()) + " dimensions of " +
                                    std::string(c10::toString(x.scalar_type())));
#ifdef STREETGAN_HAVE_CUDA_KERNELS
    const c10::cuda::CUDAGuard guard(x.device());
    const at::Tensor xc = (x.is_contiguous() || x.is_contiguous(at::MemoryFormat::ChannelsLast)) ? x : x.contiguous();
    at::Tensor mean, invstd;
    {
        const at::NoGradGuard noGrad;
        std::tie(mean, invstd) = at::batch_norm_stats(xc, bn.options.eps());
        mean = mean.to(at::kFloat);
        invstd = invstd.to(at::kFloat);
        updateRunningStats(bn, xc, mean, invstd);
    }
    at::Tensor weight = bn.options.affine() ? bn.weight : at::Tensor();
    at::Tensor bias = bn.options.affine() ? bn.bias : at::Tensor();
    return BnActAutograd::apply(xc, weight, bias, mean, invstd, negativeSlope);
#else
    (void)bn;
    (void)negativeSlope;
    throw std::logic_error("FusedBnAct::forward: unreachable without kernels");
#endif
}

torch::Tensor FusedBnAct::forwardSequential(torch::nn::Sequential& seq, torch::Tensor x, bool fuse) {
    if (!fuse || !available(x.device()) || x.dim() != 4 || !fusableDtype(x.scalar_type())) return seq->forward(x);
    const size_t layers = seq->size();
    for (size_t i = 0; i < layers; ++i) {
        torch::nn::AnyModule& layer = *(seq->begin() + static_cast<std::ptrdiff_t>(i));
        auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(layer.ptr().get());
        if (bn && bn->is_training() && i + 1 < layers) {
            const auto next = (seq->begin() + static_cast<std::ptrdiff_t>(i + 1))->ptr();
            if (std::dynamic_pointer_cast<torch::nn::ReLUImpl>(next)) {
                x = forward(x, *bn, 0.0);
                ++i;
                continue;
            }
            if (const auto leaky = std::dynamic_pointer_cast<torch::nn::LeakyReLUImpl>(next)) {
                x = forward(x, *bn, leaky->options.negative_slope());
                ++i;
                continue;
            }
        }
        x = layer.forward(x);
    }
    return x;
}

}  // namespace streetgan
