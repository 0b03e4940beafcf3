// CheckpointModels: what `directions` and `invert` share: the --threads, --device and --generator
// options, and a checkpoint's generator with its discriminator (where the checkpoint has one),
// loaded onto the chosen device.
//
// Thread contract: used by a command's main thread.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "ml/checkpoint/Checkpoint.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"

namespace streetgan {

class CheckpointModels {
public:
    /// The options, on `app`.
    void addOptions(CLI::App* app);
    /// Applies --threads (before any Torch work).
    void applyThreads() const;
    /// Loads `checkpoint`: its config and model (`data`), G as --generator chose, D (null for a
    /// generator-only checkpoint), both on --device. Throws as Checkpoint::load and ModelLoader.
    void load(const std::string& checkpoint);

    CheckpointData data;
    torch::Device device{torch::kCPU};
    Generator g{nullptr};
    Discriminator d{nullptr};

private:
    std::string device_ = "cpu", generator_;
    int threads_ = 0;
};

}  // namespace streetgan
