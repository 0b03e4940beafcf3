// Shared by the gallery server tests: a freshly initialised tiny checkpoint written by the test
// (its output layer amplified so that images span the whole [-1, 1] range, as a trained model's do)
// and a giflib decoder for responses (sizes, frame delays, the NETSCAPE loop count, RGB pixels).
#pragma once

#include <cstdint>
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
    int loop = -1;                          ///< NETSCAPE2.0 loop count (0: forever); -1: no extension
    std::vector<std::vector<uint8_t>> rgb;  ///< per frame, width * height * 3 (full-screen frames only)
    bool ok = false;
};

// The NETSCAPE2.0 loop count among `blocks` (the block after the "NETSCAPE2.0" one), or -1.
inline int netscapeLoop(const ExtensionBlock* blocks, int count) {
    for (int i = 0; i + 1 < count; ++i)
        if (blocks[i].Function == APPLICATION_EXT_FUNC_CODE && blocks[i].ByteCount == 11 && std::memcmp(blocks[i].Bytes, "NETSCAPE2.0", 11) == 0 &&
            blocks[i + 1].ByteCount >= 3 && blocks[i + 1].Bytes[0] == 1)
            return blocks[i + 1].Bytes[1] | (blocks[i + 1].Bytes[2] << 8);
    return -1;
}

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
            const SavedImage& img = gif->SavedImages[i];
            if (d.loop < 0) d.loop = netscapeLoop(img.ExtensionBlocks, img.ExtensionBlockCount);
            const ColorMapObject* map = img.ImageDesc.ColorMap ? img.ImageDesc.ColorMap : gif->SColorMap;
            if (map && img.ImageDesc.Left == 0 && img.ImageDesc.Top == 0 && img.ImageDesc.Width == d.width && img.ImageDesc.Height == d.height) {
                std::vector<uint8_t> px(static_cast<size_t>(d.width) * static_cast<size_t>(d.height) * 3);
                for (size_t p = 0; p < px.size() / 3; ++p) {
                    const GifColorType& c = map->Colors[img.RasterBits[p] % map->ColorCount];
                    px[p * 3] = c.Red;
                    px[p * 3 + 1] = c.Green;
                    px[p * 3 + 2] = c.Blue;
                }
                d.rgb.push_back(std::move(px));
            }
        }
        if (d.loop < 0) d.loop = netscapeLoop(gif->ExtensionBlocks, gif->ExtensionBlockCount);
    }
    DGifCloseFile(gif, &err);
    return d;
}

}  // namespace streetgan::test
