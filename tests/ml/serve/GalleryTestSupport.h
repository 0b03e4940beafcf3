// Shared by the gallery server tests: a freshly initialised tiny checkpoint written by the test
// (its output layer amplified so that images span the whole [-1, 1] range, as a trained model's do)
// and a giflib decoder for responses.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include <gif_lib.h>
#include <torch/torch.h>

#include "base/model/Presets.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"
#include "ml/model/WeightInit.h"

namespace streetgan::test {

/// Writes a freshly initialised checkpoint of `preset` at `path` (weights from torch seed `seed`).
inline void writeGalleryCheckpoint(const std::string& path, const std::string& preset = "tiny-32", uint64_t seed = 1) {
    torch::manual_seed(seed);
    const ModelConfig cfg = Presets::get(preset);
    Generator g(cfg);
    Discriminator d(cfg);
    WeightInit::dcgan(*g);
    WeightInit::dcgan(*d);
    {
        torch::NoGradGuard noGrad;
        // Running statistics of a trained model (var < 1) and a louder output layer: contrast.
        for (auto& b : g->named_buffers()) {
            if (b.key().find("running_var") != std::string::npos) b.value().uniform_(0.001, 0.01);
            if (b.key().find("running_mean") != std::string::npos) b.value().normal_(0, 0.01);
        }
        auto params = g->named_parameters();
        std::string last;
        for (const auto& p : params)
            if (p.value().dim() == 4) last = p.key();
        params[last].mul_(20);
    }
    CheckpointData ck;
    ck.model = cfg;
    ck.generator = Checkpoint::stateOf(*g);
    ck.discriminator = Checkpoint::stateOf(*d);
    Checkpoint::save(ck, path);
}

struct DecodedGif {
    int width = 0, height = 0, frames = 0;
    std::vector<int> delaysCs;
    bool ok = false;
};

inline DecodedGif decodeGif(const std::string& bytes) {
    struct Reader {
        const std::string* data;
        size_t pos;
    } reader{&bytes, 0};
    auto read = [](GifFileType* gif, GifByteType* buf, int len) -> int {
        auto* r = static_cast<Reader*>(gif->UserData);
        const size_t n = std::min(static_cast<size_t>(len), r->data->size() - r->pos);
        std::memcpy(buf, r->data->data() + r->pos, n);
        r->pos += n;
        return static_cast<int>(n);
    };
    DecodedGif d;
    int err = 0;
    GifFileType* gif = DGifOpen(&reader, read, &err);
    if (!gif) return d;
    if (DGifSlurp(gif) == GIF_OK) {
        d.ok = true;
        d.width = gif->SWidth;
        d.height = gif->SHeight;
        d.frames = gif->ImageCount;
        for (int i = 0; i < gif->ImageCount; ++i) {
            GraphicsControlBlock gcb;
            d.delaysCs.push_back(DGifSavedExtensionToGCB(gif, i, &gcb) == GIF_OK ? gcb.DelayTime : -1);
        }
    }
    DGifCloseFile(gif, &err);
    return d;
}

}  // namespace streetgan::test
