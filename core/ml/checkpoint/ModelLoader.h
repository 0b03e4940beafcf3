// Builds a ready generator from a loaded checkpoint (native or reference), for sample, eval,
// export, render, serve, the explorer and the metrics; and decides, in one place, which of a
// checkpoint's generators they use: G_ema (the averaged generator) when the checkpoint has one,
// unless the raw G is asked for (--generator raw).
#pragma once

#include <string>

#include "ml/checkpoint/Checkpoint.h"
#include "ml/model/Generator.h"

namespace streetgan {

enum class GeneratorChoice {
    Default,  ///< G_ema when the checkpoint has one, else G
    Ema,      ///< G_ema; an error when the checkpoint has none
    Raw,      ///< the trained G
};

class ModelLoader {
public:
    /// "ema" | "raw" | "" (Default); throws ConfigError naming the value otherwise.
    static GeneratorChoice parseChoice(const std::string& text);
    /// `ck` with its `generator` (and generatorSource) replaced by the chosen one; throws
    /// CheckpointError naming `path` when the choice is not in the checkpoint (G_ema of a run
    /// trained without it, the raw G of a slim file exported from G_ema).
    static CheckpointData select(CheckpointData ck, GeneratorChoice choice, const std::string& path);
    /// The checkpoint's chosen generator in eval mode on `device`. With a non-empty `preset` the
    /// model is built from that preset and a checkpoint of another architecture is refused naming
    /// the first mismatching tensor and both shapes (CheckpointError); otherwise the architecture is
    /// inferred.
    static Generator generator(const CheckpointData& ck, const std::string& path, const std::string& preset, torch::Device device,
                               GeneratorChoice choice = GeneratorChoice::Default);
};

}  // namespace streetgan
