// The reference DCGAN initialisation: conv weights N(0, 0.02); BatchNorm weight N(1, 0.02), bias 0.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>

namespace streetgan {

class WeightInit {
public:
    /// Draws from torch's default CPU generator (seed it first for reproducible weights).
    static void dcgan(torch::nn::Module& module);
    /// Sum of numel over trainable parameters (BatchNorm running statistics are buffers, not counted).
    static int64_t trainableParameters(const torch::nn::Module& module);
};

}  // namespace streetgan
