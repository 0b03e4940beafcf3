#include "ml/model/Discriminator.h"

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>

#include "ml/model/FusedBnAct.h"

namespace streetgan {

DiscriminatorImpl::DiscriminatorImpl(const ModelConfig& cfg) : cfg_(cfg) {
    cfg_.validate();
    namespace nn = torch::nn;
    const int stages = cfg_.stages();
    auto lrelu = [] { return nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2).inplace(true)); };
    int64_t ch = cfg_.ndf;
    main_->push_back(nn::Conv2d(nn::Conv2dOptions(cfg_.nc, ch, 4).stride(2).padding(1).bias(false)));
    main_->push_back(lrelu());
    for (int s = 1; s < stages; ++s) {
        main_->push_back(nn::Conv2d(nn::Conv2dOptions(ch, ch * 2, 4).stride(2).padding(1).bias(false)));
        main_->push_back(nn::BatchNorm2d(ch * 2));
        main_->push_back(lrelu());
        ch *= 2;
    }
    main_->push_back(nn::Conv2d(nn::Conv2dOptions(ch, 1, 4).stride(1).padding(0).bias(false)));
    register_module("main", main_);
}

torch::Tensor DiscriminatorImpl::forward(const torch::Tensor& x) { return FusedBnAct::forwardSequential(main_, x, fusedBnAct_ && is_training()).view({-1}); }

std::vector<torch::Tensor> DiscriminatorImpl::features(const torch::Tensor& x) {
    std::vector<torch::Tensor> out;
    torch::Tensor h = x;
    // Every layer but the last (the logit convolution). The LeakyReLUs work in place on the output
    // of the layer before them (a convolution or a BatchNorm), never on a tensor already kept.
    const size_t layers = main_->size();
    for (size_t i = 0; i + 1 < layers; ++i) {
        torch::nn::AnyModule& layer = *(main_->begin() + static_cast<std::ptrdiff_t>(i));
        h = layer.forward(h);
        if (std::dynamic_pointer_cast<torch::nn::LeakyReLUImpl>(layer.ptr())) out.push_back(h);
    }
    return out;
}

}  // namespace streetgan
