// Builds a ready generator from a loaded checkpoint (native or reference), for sample, eval,
// export, and later the explorer and the gallery server.
#pragma once

#include <string>

#include "ml/checkpoint/Checkpoint.h"
#include "ml/model/Generator.h"

namespace streetgan {

class ModelLoader {
public:
    /// The checkpoint's generator in eval mode on `device`. With a non-empty `preset` the model is
    /// built from that preset and a checkpoint of another architecture is refused naming the first
    /// mismatching tensor and both shapes (CheckpointError); otherwise the architecture is inferred.
    static Generator generator(const CheckpointData& ck, const std::string& path, const std::string& preset, torch::Device device);
};

}  // namespace streetgan
