// DCGAN discriminator: image (N, nc, S, S) -> logits (N) (no Sigmoid: trained with BCEWithLogits).
// Layers sit in a Sequential named "main" so state-dict keys match the reference Python model.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>

#include "base/model/ModelConfig.h"

namespace streetgan {

class DiscriminatorImpl : public torch::nn::Module {
public:
    explicit DiscriminatorImpl(const ModelConfig& cfg);
    /// x: float (N, nc, imgSize, imgSize); returns logits (N).
    torch::Tensor forward(const torch::Tensor& x);
    const ModelConfig& config() const { return cfg_; }

private:
    ModelConfig cfg_;
    torch::nn::Sequential main_;
};
TORCH_MODULE(Discriminator);

}  // namespace streetgan
