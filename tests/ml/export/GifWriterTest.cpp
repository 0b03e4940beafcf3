// GifWriter: decoded back with giflib (DGifOpen on memory + DGifSlurp): frame count, size, delays,
// the NETSCAPE2.0 loop extension, colour tables, and PSNR against the input frames.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gif_lib.h>
#include <torch/torch.h>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "ml/export/GifWriter.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

namespace {

struct Decoded {
    int width = 0, height = 0;
    bool globalMap = false;
    int loop = -1;  // -1: no NETSCAPE2.0 extension
    std::vector<int> delaysCs;
    std::vector<bool> localMaps;
    std::vector<torch::Tensor> frames;  // uint8 (H, W, 3)
};

struct Reader {
    const std::string* data;
    size_t pos = 0;
};

int readMem(GifFileType* gif, GifByteType* buf, int len) {
    auto* r = static_cast<Reader*>(gif->UserData);
    const size_t n = std::min(static_cast<size_t>(len), r->data->size() - r->pos);
    std::memcpy(buf, r->data->data() + r->pos, n);
    r->pos += n;
    return static_cast<int>(n);
}

Decoded decode(const std::string& bytes) {
    Decoded d;
    Reader reader{&bytes};
    int err = 0;
    GifFileType* gif = DGifOpen(&reader, readMem, &err);
    EXPECT_NE(gif, nullptr) << GifErrorString(err);
    if (!gif) return d;
    EXPECT_EQ(DGifSlurp(gif), GIF_OK) << GifErrorString(gif->Error);
    d.width = gif->SWidth;
    d.height = gif->SHeight;
    d.globalMap = gif->SColorMap != nullptr;
    for (int i = 0; i < gif->ImageCount; ++i) {
        const SavedImage& img = gif->SavedImages[i];
        for (int e = 0; e + 1 < img.ExtensionBlockCount; ++e) {
            const ExtensionBlock& b = img.ExtensionBlocks[e];
            if (b.Function == APPLICATION_EXT_FUNC_CODE && b.ByteCount == 11 && std::memcmp(b.Bytes, "NETSCAPE2.0", 11) == 0) {
                const ExtensionBlock& sub = img.ExtensionBlocks[e + 1];
                if (sub.ByteCount == 3 && sub.Bytes[0] == 1) d.loop = sub.Bytes[1] | (sub.Bytes[2] << 8);
            }
        }
        GraphicsControlBlock gcb;
        d.delaysCs.push_back(DGifSavedExtensionToGCB(gif, i, &gcb) == GIF_OK ? gcb.DelayTime : -1);
        const ColorMapObject* map = img.ImageDesc.ColorMap ? img.ImageDesc.ColorMap : gif->SColorMap;
        d.localMaps.push_back(img.ImageDesc.ColorMap != nullptr);
        const int w = img.ImageDesc.Width, h = img.ImageDesc.Height;
        EXPECT_EQ(w, d.width);
        EXPECT_EQ(h, d.height);
        torch::Tensor f = torch::empty({h, w, 3}, torch::kByte);
        auto* px = f.data_ptr<uint8_t>();
        for (int k = 0; k < w * h; ++k) {
            const GifColorType c = map->Colors[img.RasterBits[k]];
            px[3 * k] = c.Red;
            px[3 * k + 1] = c.Green;
            px[3 * k + 2] = c.Blue;
        }
        d.frames.push_back(f);
    }
    DGifCloseFile(gif, &err);
    return d;
}

double psnr(const torch::Tensor& a, const torch::Tensor& b) {
    const double mse = (a.to(torch::kDouble) - b.to(torch::kDouble)).pow(2).mean().item<double>();
    return mse == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / mse);
}

// Smooth, colourful frames: gradients with a moving disc. uint8 (F, H, W, 3).
torch::Tensor testFrames(int f, int h, int w) {
    auto y = torch::linspace(0, 1, h).view({1, h, 1});
    auto x = torch::linspace(0, 1, w).view({1, 1, w});
    auto t = torch::linspace(0, 1, f).view({f, 1, 1});
    auto cx = 0.2 + 0.6 * t, cy = 0.5 + 0.0 * t;
    auto disc = ((x - cx).pow(2) + (y - cy).pow(2) < 0.04).to(torch::kFloat);
    auto r = (x * 0.8 + disc * 0.2).expand({f, h, w});
    auto g = (y * 0.7 + t * 0.3).expand({f, h, w});
    auto b = (1 - disc) * (0.5 + 0.5 * x * y);
    return (torch::stack({r, g, b}, 3) * 255).round().clamp(0, 255).to(torch::kByte);
}

}  // namespace

TEST(GifWriter, GlobalPaletteRoundTrip) {
    const torch::Tensor frames = testFrames(6, 48, 64);
    GifOptions o;
    o.frameDelayMs = 80;
    const std::string gif = GifWriter(o).encode(frames);
    ASSERT_EQ(gif.substr(0, 6), "GIF89a");
    const Decoded d = decode(gif);
    ASSERT_EQ(d.frames.size(), 6u);
    EXPECT_EQ(d.width, 64);
    EXPECT_EQ(d.height, 48);
    EXPECT_TRUE(d.globalMap);
    EXPECT_EQ(d.loop, 0);
    for (size_t i = 0; i < d.frames.size(); ++i) {
        EXPECT_EQ(d.delaysCs[i], 8) << i;
        EXPECT_FALSE(d.localMaps[i]) << i;
        EXPECT_GT(psnr(d.frames[i], frames[static_cast<int64_t>(i)]), 30.0) << i;
    }
}

TEST(GifWriter, PerFramePaletteRoundTrip) {
    const torch::Tensor frames = testFrames(4, 40, 40);
    GifOptions o;
    o.palette = GifOptions::Palette::PerFrame;
    o.frameDelayMs = 125;  // 12.5 cs -> 13
    o.loopCount = 3;
    o.dithering = 0.0;
    const Decoded d = decode(GifWriter(o).encode(frames));
    ASSERT_EQ(d.frames.size(), 4u);
    EXPECT_EQ(d.loop, 3);
    for (size_t i = 0; i < d.frames.size(); ++i) {
        EXPECT_TRUE(d.localMaps[i]) << i;
        EXPECT_EQ(d.delaysCs[i], 13) << i;
        EXPECT_GT(psnr(d.frames[i], frames[static_cast<int64_t>(i)]), 30.0) << i;
    }
}

TEST(GifWriter, NoLoopExtensionWhenPlayingOnce) {
    GifOptions o;
    o.loopCount = -1;
    const Decoded d = decode(GifWriter(o).encode(testFrames(2, 16, 16)));
    EXPECT_EQ(d.loop, -1);
    EXPECT_EQ(d.frames.size(), 2u);
}

TEST(GifWriter, FewColoursAreExact) {
    // Four flat colours fit any palette: the decoded frames equal the input exactly.
    torch::Tensor frames = torch::zeros({3, 8, 8, 3}, torch::kByte);
    frames.index_put_({0}, 200);
    frames.index_put_({1, torch::indexing::Slice(), torch::indexing::Slice(0, 4)}, torch::tensor({10, 20, 30}, torch::kByte));
    frames.index_put_({2, torch::indexing::Slice(2, 6)}, torch::tensor({250, 0, 100}, torch::kByte));
    for (auto palette : {GifOptions::Palette::Global, GifOptions::Palette::PerFrame}) {
        GifOptions o;
        o.palette = palette;
        const Decoded d = decode(GifWriter(o).encode(frames));
        ASSERT_EQ(d.frames.size(), 3u);
        for (int i = 0; i < 3; ++i) EXPECT_TRUE(torch::equal(d.frames[static_cast<size_t>(i)], frames[i])) << i;
    }
}

TEST(GifWriter, NearestUpscaleRepeatsPixels) {
    const torch::Tensor frames = torch::randint(0, 4, {2, 5, 7, 3}, torch::kLong).mul(80).to(torch::kByte);  // <= 64 colours
    GifOptions o;
    o.width = 21;
    o.height = 15;
    o.resample = GifOptions::Resample::Nearest;
    o.dithering = 0;
    const Decoded d = decode(GifWriter(o).encode(frames));
    ASSERT_EQ(d.frames.size(), 2u);
    EXPECT_EQ(d.width, 21);
    EXPECT_EQ(d.height, 15);
    for (int i = 0; i < 2; ++i) {
        const torch::Tensor expected = frames[i].repeat_interleave(3, 0).repeat_interleave(3, 1);
        EXPECT_TRUE(torch::equal(d.frames[static_cast<size_t>(i)], expected)) << i;
    }
}

TEST(GifWriter, SmoothUpscaleStaysClose) {
    const torch::Tensor frames = testFrames(2, 32, 32);
    GifOptions o;
    o.width = o.height = 128;
    const Decoded d = decode(GifWriter(o).encode(frames));
    ASSERT_EQ(d.frames.size(), 2u);
    EXPECT_EQ(d.width, 128);
    const torch::Tensor nearest = frames[0].repeat_interleave(4, 0).repeat_interleave(4, 1);
    EXPECT_GT(psnr(d.frames[0], nearest), 20.0);
}

TEST(GifWriter, FromImagesMapsTanhRangeToBytes) {
    const torch::Tensor img = torch::tensor({-1.0f, 0.0f, 1.0f, 2.0f, -3.0f, 0.5f}).view({1, 3, 1, 2});
    const torch::Tensor f = GifWriter::fromImages(img);
    ASSERT_EQ(f.sizes(), (std::vector<int64_t>{1, 1, 2, 3}));
    EXPECT_EQ(f.scalar_type(), torch::kByte);
    // channel c at pixel x: img[0][c][0][x]
    EXPECT_EQ(f[0][0][0][0].item<int>(), 0);
    EXPECT_EQ(f[0][0][1][0].item<int>(), 128);  // 0 -> 127.5 + 0.5 -> 128
    EXPECT_EQ(f[0][0][0][1].item<int>(), 255);
    EXPECT_EQ(f[0][0][1][1].item<int>(), 255);  // clamped
    EXPECT_EQ(f[0][0][0][2].item<int>(), 0);    // clamped
    EXPECT_EQ(f[0][0][1][2].item<int>(), 191);  // 0.75 * 255 + 0.5 = 191.75
    EXPECT_THROW(GifWriter::fromImages(torch::zeros({2, 1, 4, 4})), DataError);
}

TEST(GifWriter, ProgressCancelAndAtomicWrite) {
    TempDir dir;
    const torch::Tensor frames = testFrames(5, 16, 16);
    GifWriter writer;
    std::vector<int> seen;
    writer.write(frames, dir / "a.gif", [&](int done, int total) {
        EXPECT_EQ(total, 5);
        seen.push_back(done);
    });
    EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5}));
    EXPECT_EQ(decode(AtomicFile::read(dir / "a.gif")).frames.size(), 5u);

    std::atomic<bool> cancel{false};
    const std::string before = AtomicFile::read(dir / "a.gif");
    EXPECT_THROW(writer.write(
                     testFrames(3, 8, 8), dir / "a.gif",
                     [&](int done, int) {
                         if (done == 2) cancel = true;
                     },
                     &cancel),
                 GifCancelled);
    EXPECT_EQ(AtomicFile::read(dir / "a.gif"), before);
    cancel = true;
    EXPECT_THROW(writer.encode(frames, {}, &cancel), GifCancelled);
    EXPECT_THROW(writer.write(frames, (dir.path() / "missing" / "b.gif").string()), IoError);
}

TEST(GifWriter, RejectsBadOptionsAndFrames) {
    auto withOpt = [](auto set) {
        GifOptions o;
        set(o);
        return o;
    };
    EXPECT_THROW(GifWriter(withOpt([](GifOptions& o) { o.dithering = 1.5; })), ConfigError);
    EXPECT_THROW(GifWriter(withOpt([](GifOptions& o) { o.frameDelayMs = -1; })), ConfigError);
    EXPECT_THROW(GifWriter(withOpt([](GifOptions& o) { o.width = 10; })), ConfigError);
    EXPECT_THROW(GifWriter(withOpt([](GifOptions& o) { o.maxColors = 1; })), ConfigError);
    EXPECT_THROW(GifWriter(withOpt([](GifOptions& o) { o.speed = 11; })), ConfigError);
    EXPECT_THROW(GifWriter(withOpt([](GifOptions& o) { o.minQuality = 90, o.maxQuality = 50; })), ConfigError);
    GifWriter w;
    EXPECT_THROW(w.encode(torch::zeros({2, 8, 8, 3}, torch::kFloat)), DataError);
    EXPECT_THROW(w.encode(torch::zeros({2, 8, 8}, torch::kByte)), DataError);
    EXPECT_THROW(w.encode(torch::zeros({0, 8, 8, 3}, torch::kByte)), DataError);
    // A quality floor the palette cannot reach is a DataError naming what to change.
    GifOptions strict;
    strict.maxColors = 2;
    strict.minQuality = 100;
    try {
        GifWriter(strict).encode(testFrames(2, 32, 32));
        ADD_FAILURE() << "expected DataError";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("minQuality"), std::string::npos) << e.what();
    }
}

TEST(GifWriter, NonContiguousInputIsAccepted) {
    const torch::Tensor frames = testFrames(3, 20, 30);
    const torch::Tensor strided = frames.permute({0, 2, 1, 3}).contiguous().permute({0, 2, 1, 3});
    ASSERT_FALSE(strided.is_contiguous());
    EXPECT_EQ(GifWriter().encode(strided), GifWriter().encode(frames));
}

TEST(GifWriter, NearestScalingToAnySizeWithDithering) {
    const torch::Tensor frames = testFrames(3, 20, 30);
    GifOptions o;
    o.width = 47;
    o.height = 33;
    o.resample = GifOptions::Resample::Nearest;
    const Decoded d = decode(GifWriter(o).encode(frames));
    ASSERT_EQ(d.frames.size(), 3u);
    EXPECT_EQ(d.width, 47);
    EXPECT_EQ(d.height, 33);
    const torch::Tensor big = frames.permute({0, 3, 1, 2}).to(torch::kFloat);
    const torch::Tensor expected =
        torch::nn::functional::interpolate(big, torch::nn::functional::InterpolateFuncOptions().size(std::vector<int64_t>{33, 47}).mode(torch::kNearest));
    for (int i = 0; i < 3; ++i) EXPECT_GT(psnr(d.frames[static_cast<size_t>(i)], expected[i].permute({1, 2, 0}).round().to(torch::kByte)), 25.0) << i;
}
