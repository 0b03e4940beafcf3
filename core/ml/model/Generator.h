// DCGAN generator: z (N, nz, 1, 1) -> image (N, nc, S, S) in [-1, 1] (Tanh).
// Layers sit in a Sequential named "main", so state-dict keys match the reference Python model
// (main.0.weight, main.1.running_mean, ...). No conv bias. Not thread-safe: one thread per module.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>

#include "base/model/ModelConfig.h"

namespace streetgan {

class GeneratorImpl : public torch::nn::Module {
public:
    explicit GeneratorImpl(const ModelConfig& cfg);
    /// z: float (N, nz) or (N, nz, 1, 1); returns (N, nc, imgSize, imgSize).
    torch::Tensor forward(torch::Tensor z);
    const ModelConfig& config() const { return cfg_; }
    /// On: in training mode on a CUDA device (in a build with the kernels), each BatchNorm2d and the
    /// activation after it run as one FusedBnAct (issue 46). Off (the default), or anywhere else:
    /// the modules as they are. State-dict keys are the same either way.
    void setFusedBnAct(bool on) { fusedBnAct_ = on; }

private:
    ModelConfig cfg_;
    torch::nn::Sequential main_;
    bool fusedBnAct_ = false;
};
TORCH_MODULE(Generator);

}  // namespace streetgan
