#include "ml/checkpoint/ModelLoader.h"

#include "base/model/Presets.h"

namespace streetgan {

Generator ModelLoader::generator(const CheckpointData& ck, const std::string& path, const std::string& preset, torch::Device device) {
    const ModelConfig cfg = preset.empty() ? ck.model : Presets::get(preset);
    Generator g(cfg);
    Checkpoint::apply(*g, ck.generator, "G", path);
    g->to(device);
    g->eval();
    return g;
}

}  // namespace streetgan
