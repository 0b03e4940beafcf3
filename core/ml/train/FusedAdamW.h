// AdamW's update in ATen's fused kernel (LibTorch 2.x on CUDA): a few launches per optimiser step
// instead of LibTorch's per-parameter loop of about 200 small kernels, and a skipped step (fp16
// overflow) decided on the device, so the loss scaler never waits for the host.
//
// The moments stay in the torch::optim::AdamW's own state, so checkpoints and resume see one
// optimiser whichever path updated it; only the step counts live on the device here (the kernel
// reads them as tensors) and are written back by syncSteps() before the state is captured.
#pragma once

#include <optional>
#include <vector>

#include <torch/optim/adamw.h>
#include <torch/types.h>

namespace streetgan {

class FusedAdamW {
public:
    /// Whether this build and `device` have the fused kernel (LibTorch 2.x, CUDA).
    static bool available(torch::Device device);

    /// One AdamW step of `opt`'s single parameter group; with `foundInf` (a float tensor of one
    /// element on the parameters' device), the step is skipped where it is non-zero.
    void step(torch::optim::AdamW& opt, const std::optional<torch::Tensor>& foundInf = std::nullopt);
    /// Writes the device step counts into `opt`'s state (one host synchronisation).
    void syncSteps(torch::optim::AdamW& opt);
    /// Forgets the device step counts; the next step() reads them from `opt`'s state (after a restore).
    void reset() { steps_.clear(); }

private:
    std::vector<torch::Tensor> steps_;  // per parameter: float32 scalar on the device
};

}  // namespace streetgan
