#include "ml/checkpoint/ModelLoader.h"

#include "base/model/Presets.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

// The chosen generator is in `ck`, or a CheckpointError says what to do.
void requireChoice(const CheckpointData& ck, GeneratorChoice choice, const std::string& path) {
    if (choice == GeneratorChoice::Ema && ck.generatorEma.empty() && ck.generatorSource != "ema")
        throw CheckpointError("checkpoint '" + path + "' has no G_ema (trained with --ema 0, or the reference's): use --generator raw");
    if (choice == GeneratorChoice::Raw && ck.generatorSource == "ema")
        throw CheckpointError("checkpoint '" + path + "' holds only G_ema (a slim export of the averaged generator): export it again with --generator raw");
}

}  // namespace

GeneratorChoice ModelLoader::parseChoice(const std::string& text) {
    if (text.empty()) return GeneratorChoice::Default;
    if (text == "ema") return GeneratorChoice::Ema;
    if (text == "raw") return GeneratorChoice::Raw;
    throw ConfigError("generator '" + text + "' is unknown: use ema (the averaged G_ema) or raw (the trained G)");
}

CheckpointData ModelLoader::select(CheckpointData ck, GeneratorChoice choice, const std::string& path) {
    requireChoice(ck, choice, path);
    if (choice != GeneratorChoice::Raw && !ck.generatorEma.empty()) {
        ck.generator = std::move(ck.generatorEma);
        ck.generatorEma.clear();
        ck.generatorSource = "ema";
    }
    return ck;
}

Generator ModelLoader::generator(const CheckpointData& ck, const std::string& path, const std::string& preset, torch::Device device, GeneratorChoice choice) {
    const ModelConfig cfg = preset.empty() ? ck.model : Presets::get(preset);
    const bool pickEma = choice != GeneratorChoice::Raw && !ck.generatorEma.empty();
    requireChoice(ck, choice, path);
    Generator g(cfg);
    Checkpoint::apply(*g, pickEma ? ck.generatorEma : ck.generator, pickEma ? "G_ema" : "G", path);
    g->to(device);
    g->eval();
    return g;
}

}  // namespace streetgan
