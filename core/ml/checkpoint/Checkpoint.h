// Checkpoints: the project's own (native) and the reference Python project's.
//
// Native checkpoints are torch.save-compatible zip archives (written with torch::pickle_save),
// laid out like the reference's dict so Python reads them with torch.load:
//   {"format": "streetgan/1", "epoch", "step", "G_state_dict", "D_state_dict", "G_optim", "D_optim"
//    (PyTorch optimizer.state_dict() layout), "noise" (K, nz, 1, 1), "config" (TrainConfig JSON
//    text), "rng" (CPU generator state), "amp_scale", "amp_growth"}.
// Reference checkpoints (torch.save of {"epoch", "G_state_dict", "D_state_dict", "G_optim",
// "D_optim", "losses", "img_list", "noise"}, state-dict keys possibly "module."-prefixed) load
// through the same reader; their architecture is inferred from the tensor shapes.
// Writes are atomic (temp, fsync, rename): a failure leaves the previous file intact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "base/model/ModelConfig.h"
#include "ml/checkpoint/OptimizerState.h"

namespace streetgan {

using StateDict = std::vector<std::pair<std::string, torch::Tensor>>;

struct CheckpointData {
    std::string format = "streetgan/1";  ///< "streetgan/1" or "reference"
    ModelConfig model;
    std::string configJson;  ///< TrainConfig::toJson().dump(), empty for reference checkpoints
    int64_t epoch = 0;
    int64_t step = 0;     ///< optimiser steps done (reference checkpoints: 0, unknown)
    StateDict generator;  ///< parameters and buffers, keys without "module."
    StateDict discriminator;
    std::optional<OptimizerState> generatorOptim;
    std::optional<OptimizerState> discriminatorOptim;
    torch::Tensor fixedNoise;  ///< (K, nz, 1, 1) float32 on CPU, or undefined
    torch::Tensor rngState;    ///< default CPU generator state, or undefined
    double ampScale = 0;       ///< fp16 loss scale (0: not used)
    int64_t ampGrowth = 0;
};

class Checkpoint {
public:
    /// Writes atomically; throws IoError naming the path (previous file kept on failure).
    static void save(const CheckpointData& data, const std::string& path);
    /// Reads a native or reference checkpoint; throws CheckpointError naming the path.
    static CheckpointData load(const std::string& path);
    /// Parameters and buffers of `module` (copied to CPU), in registration order.
    static StateDict stateOf(const torch::nn::Module& module);
    /// Copies `state` into `module` in place (keeps the module's device and dtype). Throws
    /// CheckpointError naming `what` (e.g. "G"), the first missing/unexpected tensor, or the first
    /// mismatching tensor with both shapes.
    static void apply(torch::nn::Module& module, const StateDict& state, const std::string& what, const std::string& path);
    /// "[64, 3, 4, 4]": a tensor's shape as error messages print it.
    static std::string shapeText(const torch::Tensor& t);
    /// Architecture implied by the generator and discriminator tensors.
    static ModelConfig inferArchitecture(const StateDict& g, const StateDict& d, const std::string& path);
};

}  // namespace streetgan
