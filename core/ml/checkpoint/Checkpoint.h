// Checkpoints: the project's own (native) and the reference Python project's.
//
// Native checkpoints are torch.save-compatible zip archives (written with torch::pickle_save),
// laid out like the reference's dict so Python reads them with torch.load and the reference's own
// training resumes from them (its resume path reads epoch, G/D_state_dict, G/D_optim, losses,
// noise and img_list):
//   {"format": "streetgan/1", "epoch", "step", "G_state_dict", "D_state_dict", "G_optim", "D_optim"
//    (PyTorch optimizer.state_dict() layout), "losses" ({"_G": [float], "_D": [float]}: the losses
//    of every logged step, i.e. of every metrics event, oldest first; each is the mean over the
//    steps since the previous log, where the reference logs the single step's loss), "img_list"
//    (CheckpointData::imgList, see below), "noise" (K, nz, 1, 1) fixed progress noise, "config"
//    (TrainConfig JSON text), "rng" (CPU generator state), "amp_scale", "amp_growth",
//    "G_ema_state_dict" (only with --ema > 0: the averaged generator, GeneratorAverage)}.
// G_state_dict is always the raw G, so the reference's loaders, which know nothing of G_ema, load
// and resume exactly what was trained; the extra key is ignored by them.
// img_list is empty in a run of ours on purpose: the reference appends one float grid per saved
// epoch (3 x 1042 x 1042 float32, 13 MB, for 64 images at 128 px) and carries all of them in every
// checkpoint, so a long run's checkpoints would grow without bound. Our progress grids are the
// samples/step_N.png files of the run directory; the reference appends to the empty list and
// resumes normally. A reference checkpoint's img_list is read (its grids, as float tensors), and
// a run resumed from one carries it on and appends to it as the reference would (TrainingRun), so
// the history of a run that began in the reference's trainer is never lost.
// Reference checkpoints (torch.save of {"epoch", "G_state_dict", "D_state_dict", "G_optim",
// "D_optim", "losses", "img_list", "noise"}, state-dict keys possibly "module."-prefixed) load
// through the same reader; their architecture is inferred from the tensor shapes, their step
// from G_optim's step count. Their losses may be {"_G", "_D"} (gpu_dcgan.py) or [G, D] lists;
// a layout other than these is ignored (the history is informational and never blocks loading).
// Checkpoints written before losses existed load with an empty history.
// Slim checkpoints (saveSlim; the reference's create_slim_checkpoint intent): every reference key
// present, all None but "epoch" and "G_state_dict", then "G_source": "ema" or "raw", which of the
// generators G_state_dict holds (the reference's loader reads only G_state_dict). They load as G-only CheckpointData
// (discriminator empty; ndf, which G does not determine, taken from the preset with that
// generator, else 64): enough to sample, serve and render; TrainStep::restore refuses them.
// Writes are atomic (temp, fsync, rename): a failure leaves the previous file intact. Measured
// (tiny-32, 100k logged steps = 200k floats, 1.8 MB of pickle): see docs/cli.md "Checkpoint files".
// Thread contract: stateless static functions; CheckpointData is a plain value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "base/model/ModelConfig.h"
#include "ml/checkpoint/LossHistory.h"
#include "ml/checkpoint/OptimizerState.h"

namespace streetgan {

using StateDict = std::vector<std::pair<std::string, torch::Tensor>>;

struct CheckpointData {
    std::string format = "streetgan/1";  ///< "streetgan/1" or "reference"
    ModelConfig model;
    std::string configJson;  ///< TrainConfig::toJson().dump(), empty for reference checkpoints
    int64_t epoch = 0;
    int64_t step = 0;     ///< optimiser steps done (reference checkpoints: G_optim's step count, 0 when absent)
    StateDict generator;  ///< parameters and buffers, keys without "module."
    StateDict discriminator;
    StateDict generatorEma;  ///< G_ema (same keys as generator), empty when the run had none
    /// A slim checkpoint's "G_source": which generator `generator` is ("raw" or "ema"); "raw" for
    /// full checkpoints, whose generator is always the trained G.
    std::string generatorSource = "raw";
    std::optional<OptimizerState> generatorOptim;
    std::optional<OptimizerState> discriminatorOptim;
    torch::Tensor fixedNoise;  ///< (K, nz, 1, 1) float32 on CPU, or undefined
    torch::Tensor rngState;    ///< default CPU generator state, or undefined
    double ampScale = 0;       ///< fp16 loss scale (0: not used)
    int64_t ampGrowth = 0;
    LossHistory losses;  ///< G/D loss per logged step ("losses"), empty when the file has none
    /// "img_list": the reference's fixed-noise grids, (3, H, W) float32 in [0, 1] on CPU, oldest
    /// first; empty for a run of ours (see above).
    std::vector<torch::Tensor> imgList;

    /// A slim (G-only) checkpoint: no discriminator to train with.
    bool generatorOnly() const { return discriminator.empty(); }
};

class Checkpoint {
public:
    /// Writes atomically; throws IoError naming the path (previous file kept on failure).
    static void save(const CheckpointData& data, const std::string& path);
    /// Reads a native or reference checkpoint; throws CheckpointError naming the path.
    static CheckpointData load(const std::string& path);
    /// The reference's slim checkpoint: {"epoch", "G_state_dict"} and every other key of the
    /// reference's checkpoint dict set to None, then "G_source" (data.generatorSource): G_state_dict
    /// is data.generator (ModelLoader::select puts the chosen generator there). Writes atomically;
    /// throws IoError naming the path.
    static void saveSlim(const CheckpointData& data, const std::string& path);
    /// Parameters and buffers of `module` (copied to CPU), in registration order.
    static StateDict stateOf(const torch::nn::Module& module);
    /// Copies `state` into `module` in place (keeps the module's device and dtype). Throws
    /// CheckpointError naming `what` (e.g. "G"), the first missing/unexpected tensor, or the first
    /// mismatching tensor with both shapes.
    static void apply(torch::nn::Module& module, const StateDict& state, const std::string& what, const std::string& path);
    /// "[64, 3, 4, 4]": a tensor's shape as error messages print it.
    static std::string shapeText(const torch::Tensor& t);
    /// Architecture implied by the generator and discriminator tensors (no discriminator: ndf of
    /// the preset with that generator, else 64).
    static ModelConfig inferArchitecture(const StateDict& g, const StateDict& d, const std::string& path);
};

}  // namespace streetgan
