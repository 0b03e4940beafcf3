#include "ml/model/WeightInit.h"

#include <torch/nn/init.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>

namespace streetgan {

void WeightInit::dcgan(torch::nn::Module& module) {
    torch::NoGradGuard noGrad;
    for (auto& m : module.modules(/*include_self=*/false)) {
        if (auto* c = m->as<torch::nn::Conv2d>()) {
            torch::nn::init::normal_(c->weight, 0.0, 0.02);
        } else if (auto* t = m->as<torch::nn::ConvTranspose2d>()) {
            torch::nn::init::normal_(t->weight, 0.0, 0.02);
        } else if (auto* b = m->as<torch::nn::BatchNorm2d>()) {
            torch::nn::init::normal_(b->weight, 1.0, 0.02);
            torch::nn::init::zeros_(b->bias);
        }
    }
}

int64_t WeightInit::trainableParameters(const torch::nn::Module& module) {
    int64_t n = 0;
    for (const auto& p : module.parameters())
        if (p.requires_grad()) n += p.numel();
    return n;
}

}  // namespace streetgan
