// Benchmark helper of bench_render.sh (compiled by it against build/release's streetgan_ml;
// not part of the CMake build). Two modes:
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
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/model/Presets.h"
#include "base/util/AtomicFile.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/FrameRenderer.h"
#include "ml/export/GifWriter.h"
#include "ml/export/PngSequenceWriter.h"
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
    std::cerr << "usage: bench_render latency THREADS ITERS | gif CHECKPOINT FRAMES SIZE OUTDIR REPEATS [PALETTE DITHERING UPSCALE SPEED]\n";
    return 2;
}
