// DCGAN discriminator: image (N, nc, S, S) -> logits (N) (no Sigmoid: trained with BCEWithLogits).
// Layers sit in a Sequential named "main" so state-dict keys match the reference Python model.
// features() runs the same layers and also returns the activation after each LeakyReLU (the
// discriminator's own feature maps, used as a perceptual distance by ml/invert/LatentInverter, as
// AnoGAN does); forward() is unchanged. Not thread-safe: one thread per module.
#pragma once

#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>

#include "base/model/ModelConfig.h"

namespace streetgan {

class DiscriminatorImpl : public torch::nn::Module {
public:
    explicit DiscriminatorImpl(const ModelConfig& cfg);
    /// x: float (N, nc, imgSize, imgSize); returns logits (N).
    torch::Tensor forward(const torch::Tensor& x);
    /// The activations after each LeakyReLU, shallowest first (one per stage: (N, ndf * 2^s,
    /// imgSize / 2^(s+1), same)). The logits are not computed. Differentiable with respect to x.
    std::vector<torch::Tensor> features(const torch::Tensor& x);
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
TORCH_MODULE(Discriminator);

}  // namespace streetgan
