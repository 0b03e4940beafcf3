#include "ml/train/GradScaler.h"

#include <torch/torch.h>

namespace streetgan {

GradScaler::GradScaler(torch::Device device, double initScale, double growthFactor, double backoffFactor, int64_t growthInterval)
    : growthFactor_(growthFactor), backoffFactor_(backoffFactor), growthInterval_(growthInterval) {
    scale_ = torch::full({1}, initScale, torch::TensorOptions().dtype(torch::kFloat32).device(device));
    growthTracker_ = torch::zeros({1}, torch::TensorOptions().dtype(torch::kInt32).device(device));
}

bool GradScaler::step(torch::optim::Optimizer& opt) {
    if (unscale(opt).item<float>() != 0.0f) return false;  // skip this step: the scale backs off in update()
    opt.step();
    return true;
}

torch::Tensor GradScaler::unscale(torch::optim::Optimizer& opt) {
    std::vector<torch::Tensor> grads;
    for (auto& group : opt.param_groups())
        for (auto& p : group.params())
            if (p.grad().defined()) grads.push_back(p.grad());
    auto found = torch::zeros({1}, scale_.options());
    auto inv = scale_.to(torch::kFloat64).reciprocal().to(torch::kFloat32);
    if (!grads.empty()) at::_amp_foreach_non_finite_check_and_unscale_(grads, found, inv);
    foundInf_[&opt] = found;
    return found;
}

void GradScaler::update() {
    if (foundInf_.empty()) return;
    auto total = torch::zeros({1}, scale_.options());
    for (auto& [opt, f] : foundInf_) total.add_(f);
    at::_amp_update_scale_(scale_, growthTracker_, total, growthFactor_, backoffFactor_, growthInterval_);
    foundInf_.clear();
}

double GradScaler::scaleValue() const { return scale_.item<double>(); }
int64_t GradScaler::growthTracker() const { return growthTracker_.item<int64_t>(); }

void GradScaler::load(double scale, int64_t growthTracker) {
    if (scale > 0) scale_.fill_(scale);
    growthTracker_.fill_(growthTracker);
}

}  // namespace streetgan
