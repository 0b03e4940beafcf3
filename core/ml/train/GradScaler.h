// Dynamic loss scaling for fp16 training, PyTorch's GradScaler algorithm built on ATen's
// _amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_ (CUDA kernels in LibTorch
// 1.13, so fp16 needs a CUDA device). Use: scale(loss).backward(); step(opt); ... update().
// step() reads found_inf on the host once per optimizer, as PyTorch's GradScaler does; unscale()
// leaves it on the device for an optimiser that skips the step there (FusedAdamW): no host sync.
#pragma once

#include <cstdint>
#include <map>

#include <torch/optim/optimizer.h>
#include <torch/types.h>

namespace streetgan {

class GradScaler {
public:
    explicit GradScaler(torch::Device device, double initScale = 65536.0, double growthFactor = 2.0, double backoffFactor = 0.5, int64_t growthInterval = 2000);
    torch::Tensor scale(const torch::Tensor& loss) const { return loss * scale_; }
    /// Unscales the optimizer's gradients and steps it unless they hold inf/NaN; returns whether it stepped.
    bool step(torch::optim::Optimizer& opt);
    /// Unscales the optimizer's gradients and returns found_inf (1 element, on the device: non-zero
    /// when they hold inf/NaN) without reading it; the caller steps or skips on the device.
    torch::Tensor unscale(torch::optim::Optimizer& opt);
    /// Grows or backs off the scale from this iteration's overflow checks.
    void update();
    double scaleValue() const;
    int64_t growthTracker() const;
    void load(double scale, int64_t growthTracker);

private:
    torch::Tensor scale_;          // float32 (1) on the device
    torch::Tensor growthTracker_;  // int32 (1) on the device
    std::map<const torch::optim::Optimizer*, torch::Tensor> foundInf_;
    double growthFactor_, backoffFactor_;
    int64_t growthInterval_;
};

}  // namespace streetgan
