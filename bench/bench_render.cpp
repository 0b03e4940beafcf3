// Benchmark helper of bench_render.sh (compiled by it against build/release's streetgan_ml;
// not part of the CMake build). Three modes:
//   bench_render latency THREADS ITERS
//       naive-64 generator (DCGAN init, seed 0), FrameRenderer at batch 1, size 64 (the model's
//       resolution: no upscale), CPU, THREADS intra-op threads; renders one frame ITERS times after
//       5 warm-up frames. Prints JSON {"threads","iters","median_ms","p10_ms","p90_ms"}.
//   bench_render gif CHECKPOINT FRAMES SIZE OUTDIR REPEATS
//       renders a SLERP loop of FRAMES frames (4 seeded keyframes, nearest upscale to SIZE) with
//       FrameRenderer, writes the true frames to OUTDIR/frames (PNG sequence), then encodes them
//       with GifWriter's default options (80 ms, loop forever) REPEATS times, writing
//       OUTDIR/ours.gif. Prints JSON {"frames","size","encode_s_median","bytes"}. Optional trailing
//       arguments override GifWriter's options: PALETTE (global|per-frame) DITHERING (0..1)
//       UPSCALE (nearest|smooth, of the frames) SPEED (1..10).
//   bench_render webp SESSION OUTDIR [QUALITY...]
//       GIF against animated WebP at equal quality (issue 42 item 2): renders SESSION as `render`
//       does (SessionExporter::frames, the checkpoint's default generator, CPU), writes it as
//       `render --out x.gif` does (SessionExporter::write: the session's GIF options) and as lossy
//       WebP (WebpWriter, the session's delay and loop count) at each QUALITY (default 50 55 .. 100),
//       and lossless; decodes every file back (giflib; libwebpdemux's WebPAnimDecoder) and takes the
//       mean over frames of the PSNR against the rendered frames. Prints JSON: the GIF's bytes and
//       PSNR, each WebP's, and "equal": the lowest quality whose PSNR is at least the GIF's, its
//       bytes and webp_bytes / gif_bytes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gif_lib.h>
#include <torch/torch.h>
#include <webp/demux.h>

#include "base/latent/LatentSession.h"
#include "base/model/Presets.h"
#include "base/util/AtomicFile.h"
#include "base/util/ContentHash.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/FrameRenderer.h"
#include "ml/export/GifWriter.h"
#include "ml/export/PngSequenceWriter.h"
#include "ml/export/SessionExporter.h"
#include "ml/export/WebpWriter.h"
#include "ml/latent/LatentPath.h"
#include "ml/latent/LatentSeed.h"
#include "ml/model/WeightInit.h"

using namespace streetgan;
using Clock = std::chrono::steady_clock;

static double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

static double pct(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

// Mean over frames of the PSNR (dB) of `decoded` against `truth` (uint8 (N, H, W, 3)); a frame the
// decoder shows for k frame times (an encoder merges identical frames) stands for those k frames.
static double meanPsnr(const std::vector<std::pair<at::Tensor, int>>& decoded, const at::Tensor& truth) {
    double sum = 0;
    int64_t i = 0;
    for (const auto& [frame, times] : decoded)
        for (int k = 0; k < times && i < truth.size(0); ++k, ++i) {
            const double mse = (frame.to(torch::kDouble) - truth[i].to(torch::kDouble)).pow(2).mean().item<double>();
            sum += mse == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / mse);
        }
    if (i != truth.size(0)) throw std::runtime_error("decoded " + std::to_string(i) + " frame times of " + std::to_string(truth.size(0)));
    return sum / static_cast<double>(i);
}

// Every frame of a GIF, composed (each frame covers the canvas, as GifWriter writes them).
static std::vector<std::pair<at::Tensor, int>> decodeGif(const std::string& path) {
    int err = 0;
    GifFileType* gif = DGifOpenFileName(path.c_str(), &err);
    if (!gif || DGifSlurp(gif) != GIF_OK) throw std::runtime_error("cannot decode " + path);
    std::vector<std::pair<at::Tensor, int>> out;
    for (int i = 0; i < gif->ImageCount; ++i) {
        const SavedImage& img = gif->SavedImages[i];
        const ColorMapObject* map = img.ImageDesc.ColorMap ? img.ImageDesc.ColorMap : gif->SColorMap;
        at::Tensor f = torch::zeros({gif->SHeight, gif->SWidth, 3}, torch::kUInt8);
        auto a = f.accessor<uint8_t, 3>();
        for (int y = 0; y < img.ImageDesc.Height; ++y)
            for (int x = 0; x < img.ImageDesc.Width; ++x) {
                const GifColorType c = map->Colors[img.RasterBits[y * img.ImageDesc.Width + x]];
                a[img.ImageDesc.Top + y][img.ImageDesc.Left + x][0] = c.Red;
                a[img.ImageDesc.Top + y][img.ImageDesc.Left + x][1] = c.Green;
                a[img.ImageDesc.Top + y][img.ImageDesc.Left + x][2] = c.Blue;
            }
        out.emplace_back(f, 1);
    }
    DGifCloseFile(gif, &err);
    return out;
}

// Every frame of an animated WebP with how many frame times (delayMs) it is shown.
static std::vector<std::pair<at::Tensor, int>> decodeWebp(const std::string& bytes, int delayMs) {
    const WebPData data{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
    WebPAnimDecoderOptions o;
    WebPAnimDecoderOptionsInit(&o);
    o.color_mode = MODE_RGBA;
    WebPAnimDecoder* dec = WebPAnimDecoderNew(&data, &o);
    if (!dec) throw std::runtime_error("cannot decode a WebP");
    WebPAnimInfo info;
    WebPAnimDecoderGetInfo(dec, &info);
    std::vector<std::pair<at::Tensor, int>> out;
    int previous = 0;
    while (WebPAnimDecoderHasMoreFrames(dec)) {
        uint8_t* rgba = nullptr;
        int end = 0;
        WebPAnimDecoderGetNext(dec, &rgba, &end);
        const at::Tensor f = torch::from_blob(rgba, {info.canvas_height, info.canvas_width, 4}, torch::kUInt8).slice(2, 0, 3).clone();
        out.emplace_back(f, std::max(1, static_cast<int>(std::lround(static_cast<double>(end - previous) / delayMs))));
        previous = end;
    }
    WebPAnimDecoderDelete(dec);
    return out;
}

int main(int argc, char** argv) {
    const std::vector<std::string> a(argv, argv + argc);
    if (argc == 4 && a[1] == "latency") {
        const int threads = std::stoi(a[2]), iters = std::stoi(a[3]);
        torch::set_num_threads(threads);
        torch::manual_seed(0);
        Generator g(Presets::get("naive-64"));
        FrameRenderer::Options o;
        o.size = 64;
        o.batch = 1;
        const FrameRenderer r(g, o);
        const at::Tensor z = LatentSeed::draw(1, g->config().nz);
        for (int i = 0; i < 5; ++i) r.renderOne(z);
        std::vector<double> ms;
        for (int i = 0; i < iters; ++i) {
            const auto t0 = Clock::now();
            r.renderOne(z);
            ms.push_back(seconds(t0, Clock::now()) * 1000);
        }
        std::printf("{\"threads\": %d, \"iters\": %d, \"median_ms\": %.3f, \"p10_ms\": %.3f, \"p90_ms\": %.3f}\n", threads, iters, pct(ms, 0.5), pct(ms, 0.1),
                    pct(ms, 0.9));
        return 0;
    }
    if (argc >= 7 && argc <= 11 && a[1] == "gif") {
        // Optional: PALETTE (global|per-frame) DITHERING (0..1) UPSCALE (nearest|smooth) SPEED (1..10).
        GifOptions go;
        if (argc > 7) go.palette = a[7] == "per-frame" ? GifOptions::Palette::PerFrame : GifOptions::Palette::Global;
        if (argc > 8) go.dithering = std::stod(a[8]);
        if (argc > 10) go.speed = std::stoi(a[10]);
        const int frames = std::stoi(a[3]), size = std::stoi(a[4]), repeats = std::stoi(a[6]);
        const std::string out = a[5];
        const CheckpointData ck = Checkpoint::load(a[2]);
        Generator g = ModelLoader::generator(ck, a[2], "", torch::kCPU);
        const int64_t nz = g->config().nz;
        LatentPath::Options po;
        po.framesPerSegment = frames / 4;
        po.loop = true;
        const LatentPath path({LatentSeed::draw(3, nz), LatentSeed::draw(11, nz), LatentSeed::draw(24, nz), LatentSeed::draw(42, nz)}, po);
        FrameRenderer::Options o;
        o.size = size;
        if (argc > 9 && a[9] == "smooth") o.upscale = FrameRenderer::Upscale::Smooth;
        const at::Tensor f = FrameRenderer(g, o).render(path.frames());
        if (!std::filesystem::exists(out + "/frames")) PngSequenceWriter::write(f, out + "/frames");
        const GifWriter writer(go);  // defaults: global palette, full dithering, 80 ms, loop forever
        std::vector<double> s;
        std::string bytes;
        for (int i = 0; i < repeats; ++i) {
            const auto t0 = Clock::now();
            bytes = writer.encode(f);
            s.push_back(seconds(t0, Clock::now()));
        }
        AtomicFile::write(out + "/ours.gif", bytes);
        std::printf("{\"frames\": %lld, \"size\": %d, \"encode_s_median\": %.4f, \"bytes\": %zu}\n", static_cast<long long>(f.size(0)), size, pct(s, 0.5),
                    bytes.size());
        return 0;
    }
    if (argc >= 4 && a[1] == "webp") {
        const std::string sessionPath = a[2], out = a[3];
        std::vector<int> qualities;
        for (int i = 4; i < argc; ++i) qualities.push_back(std::stoi(a[i]));
        if (qualities.empty())
            for (int q = 50; q <= 100; q += 5) qualities.push_back(q);
        const LatentSession session = LatentSession::read(sessionPath);
        const std::string ckPath = session.resolveCheckpoint(sessionPath);
        const std::string sha = ContentHash::sha256File(ckPath);
        const Generator g = ModelLoader::generator(Checkpoint::load(ckPath), ckPath, "", torch::kCPU);
        const at::Tensor f = SessionExporter::frames(session, g, sha);
        auto t0 = Clock::now();
        const SessionExporter::Result gif = SessionExporter::write(f, session, out + "/walk.gif");
        const double gifSeconds = seconds(t0, Clock::now());
        const double gifPsnr = meanPsnr(decodeGif(out + "/walk.gif"), f);
        std::string rows;
        int equalQ = -1;
        size_t equalBytes = 0;
        double equalPsnr = 0;
        WebpOptions wo;
        wo.frameDelayMs = session.frameDelayMs;
        wo.loopCount = session.gifLoopCount;
        for (size_t i = 0; i <= qualities.size(); ++i) {
            const bool lossless = i == qualities.size();
            wo.lossless = lossless;
            wo.quality = lossless ? WebpOptions{}.quality : qualities[i];
            t0 = Clock::now();
            const std::string bytes = WebpWriter(wo).encode(f);
            const double s = seconds(t0, Clock::now());
            const double p = meanPsnr(decodeWebp(bytes, wo.frameDelayMs), f);
            char row[200];
            std::snprintf(row, sizeof row, "%s{\"quality\": %s, \"bytes\": %zu, \"psnr_db\": %.3f, \"encode_s\": %.4f}", rows.empty() ? "" : ", ",
                          lossless ? "\"lossless\"" : std::to_string(wo.quality).c_str(), bytes.size(), p, s);
            rows += row;
            if (!lossless && equalQ < 0 && p >= gifPsnr) {
                equalQ = wo.quality;
                equalBytes = bytes.size();
                equalPsnr = p;
            }
        }
        std::printf("{\"session\": \"%s\", \"frames\": %lld, \"size\": %d, \"gif\": {\"bytes\": %llu, \"psnr_db\": %.3f, \"encode_s\": %.4f}, \"webp\": [%s], ",
                    sessionPath.c_str(), static_cast<long long>(f.size(0)), session.size, static_cast<unsigned long long>(gif.bytes), gifPsnr, gifSeconds,
                    rows.c_str());
        if (equalQ < 0)
            std::printf("\"equal\": null}\n");
        else
            std::printf("\"equal\": {\"quality\": %d, \"bytes\": %zu, \"psnr_db\": %.3f, \"ratio\": %.4f}}\n", equalQ, equalBytes, equalPsnr,
                        static_cast<double>(equalBytes) / static_cast<double>(gif.bytes));
        return 0;
    }
    std::cerr << "usage: bench_render latency THREADS ITERS | gif CHECKPOINT FRAMES SIZE OUTDIR REPEATS [PALETTE DITHERING UPSCALE SPEED] | webp SESSION "
                 "OUTDIR [QUALITY...]\n";
    return 2;
}
