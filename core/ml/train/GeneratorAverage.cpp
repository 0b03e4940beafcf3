#include "ml/train/GeneratorAverage.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <algorithm>
#include <cmath>

namespace streetgan {

GeneratorAverage::GeneratorAverage(const Generator& g, double decay) : decay_(decay) {
    // The module's constructor initialises its layers from the default CPU generator; its state is
    // put back so that G_ema costs no random numbers (the weights are overwritten below anyway).
    auto cpu = at::detail::getDefaultCPUGenerator();
    const torch::Tensor state = cpu.get_state();
    ema_ = Generator(g->config());
    cpu.set_state(state);
    for (auto& p : ema_->parameters()) p.requires_grad_(false);
    ema_->to(g->parameters().front().device());
    torch::NoGradGuard noGrad;
    auto src = g->parameters();
    auto dst = ema_->parameters();
    for (size_t i = 0; i < dst.size(); ++i)
        if (src[i].dim() == 4 && src[i].is_contiguous(torch::MemoryFormat::ChannelsLast)) dst[i].set_data(dst[i].contiguous(torch::MemoryFormat::ChannelsLast));
    copyFrom(g);
    ema_->eval();  // only ever drawn from
}

double GeneratorAverage::beta(double decay, int64_t stepsBefore) {
    if (stepsBefore <= 0) return 0.0;
    return std::min(decay, std::pow(0.5, 1.0 / (0.05 * static_cast<double>(stepsBefore))));
}

void GeneratorAverage::update(const Generator& g, int64_t stepsBefore) {
    torch::NoGradGuard noGrad;
    const double b = beta(decay_, stepsBefore);
    auto src = g->parameters();
    auto dst = ema_->parameters();
    // p_ema + (1 - beta) (p_G - p_ema): torch.Tensor.lerp_(p_G, 1 - beta), as StyleGAN2's p_ema.copy_(p.lerp(p_ema, beta)).
    for (size_t i = 0; i < dst.size(); ++i) dst[i].lerp_(src[i].detach(), 1.0 - b);
    auto sb = g->buffers();
    auto db = ema_->buffers();
    for (size_t i = 0; i < db.size(); ++i) db[i].copy_(sb[i]);
}

void GeneratorAverage::copyFrom(const Generator& g) {
    torch::NoGradGuard noGrad;
    auto src = g->parameters();
    auto dst = ema_->parameters();
    for (size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
    auto sb = g->buffers();
    auto db = ema_->buffers();
    for (size_t i = 0; i < db.size(); ++i) db[i].copy_(sb[i]);
}

}  // namespace streetgan
