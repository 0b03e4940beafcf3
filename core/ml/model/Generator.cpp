#include "ml/model/Generator.h"

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>

#include "ml/model/FusedBnAct.h"

namespace streetgan {

GeneratorImpl::GeneratorImpl(const ModelConfig& cfg) : cfg_(cfg) {
    cfg_.validate();
    namespace nn = torch::nn;
    const int stages = cfg_.stages();
    int64_t ch = cfg_.ngf << (stages - 1);  // 64 px: 8 ngf, 128 px: 16 ngf
    main_->push_back(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(cfg_.nz, ch, 4).stride(1).padding(0).bias(false)));
    main_->push_back(nn::BatchNorm2d(ch));
    main_->push_back(nn::ReLU(nn::ReLUOptions(true)));
    for (int s = 1; s < stages; ++s) {
        main_->push_back(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(ch, ch / 2, 4).stride(2).padding(1).bias(false)));
        main_->push_back(nn::BatchNorm2d(ch / 2));
        main_->push_back(nn::ReLU(nn::ReLUOptions(true)));
        ch /= 2;
    }
    main_->push_back(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(ch, cfg_.nc, 4).stride(2).padding(1).bias(false)));
    main_->push_back(nn::Tanh());
    register_module("main", main_);
}

torch::Tensor GeneratorImpl::forward(torch::Tensor z) {
    if (z.dim() == 2) z = z.view({z.size(0), z.size(1), 1, 1});
    return FusedBnAct::forwardSequential(main_, z, fusedBnAct_ && is_training());
}

}  // namespace streetgan
