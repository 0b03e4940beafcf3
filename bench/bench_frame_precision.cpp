// One explorer frame's generator call in each way LibTorch offers to compute it (issue 44 item 4;
// not a test, asserts nothing): which bfloat16 route is fastest on this CPU, and how far its
// frames are from float32's.
//   fp32           Generator::forward under InferenceMode (what `render` runs; the reference)
//   autocast-bf16  the same under CPU autocast to bfloat16 (AutocastGuard)
//   cast-bf16      a copy of the generator cast to bfloat16, fed bfloat16 z
//   frozen-fp32    FrozenGenerator, float32 (BatchNorm folded, sub-pixel phases as conv2d)
//   frozen-bf16    FrozenGenerator, bfloat16
//   packed-bf16    PackedGenerator (oneDNN weights reordered once; what the explore worker uses)
// For each: the median and p90 ms of one frame (batch 1) over --frames calls after 3 warm-ups, and
// the PSNR of its uint8 frames (FrameRenderer's conversion) against fp32's over 16 seeds.
// A route LibTorch cannot run here prints its one-line error instead.
//
// Usage: bench_frame_precision (--preset P [--seed S] [--save CK] | --checkpoint CK) [--frames 40] [--threads 0]
// Prints one JSON line per route. Weights of --preset are the DCGAN initialisation (WeightInit) drawn
// from --seed, BatchNorm running statistics as a fresh model has them ("random weights"); --save
// writes them as a G-only checkpoint (what bench_explore's msls-128 rows render) and exits.
// Thread contract: single-threaded program (LibTorch's intra-op threads: --threads, 0 = default).
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "base/model/Presets.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/checkpoint/ModelLoader.h"
#include "ml/export/GifWriter.h"
#include "ml/invert/ImageSimilarity.h"
#include "ml/latent/LatentSeed.h"
#include "ml/model/FrozenGenerator.h"
#include "ml/model/WeightInit.h"
#include "ml/train/AutocastGuard.h"

using namespace streetgan;

namespace {

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

std::string arg(int argc, char** argv, const std::string& name, const std::string& def) {
    for (int i = 1; i + 1 < argc; ++i)
        if (name == argv[i]) return argv[i + 1];
    return def;
}

// PSNR of two uint8 (N, H, W, 3) frames, capped at 99 dB (identical frames).
double psnr(const at::Tensor& a, const at::Tensor& b) {
    auto chw = [](const at::Tensor& f) { return f.permute({0, 3, 1, 2}).to(at::kDouble).div(255.0); };
    return std::min(99.0, ImageSimilarity::psnr(chw(a), chw(b)).min().item<double>());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string preset = arg(argc, argv, "--preset", ""), ck = arg(argc, argv, "--checkpoint", "");
    const int frames = std::stoi(arg(argc, argv, "--frames", "40")), threads = std::stoi(arg(argc, argv, "--threads", "0"));
    if (preset.empty() == ck.empty()) {
        std::fprintf(stderr, "bench_frame_precision: give --preset NAME or --checkpoint CK\n");
        return 2;
    }
    if (threads > 0) at::set_num_threads(threads);
    Generator g{nullptr};
    if (!ck.empty()) {
        g = ModelLoader::generator(Checkpoint::load(ck), ck, "", at::kCPU, GeneratorChoice::Default);
    } else {
        torch::manual_seed(std::stoull(arg(argc, argv, "--seed", "0")));
        g = Generator(Presets::get(preset));
        WeightInit::dcgan(*g);
        if (const std::string out = arg(argc, argv, "--save", ""); !out.empty()) {
            CheckpointData data;
            data.model = g->config();
            data.generator = Checkpoint::stateOf(*g);
            Checkpoint::save(data, out);
            std::printf("{\"saved\":\"%s\",\"preset\":\"%s\"}\n", out.c_str(), preset.c_str());
            return 0;
        }
    }
    g->eval();
    const int64_t nz = g->config().nz;
    Generator cast(g->config());
    {
        torch::NoGradGuard noGrad;
        auto src = g->named_parameters(), dst = cast->named_parameters();
        for (auto& p : src) dst[p.key()].copy_(p.value());
        auto sb = g->named_buffers(), db = cast->named_buffers();
        for (auto& b : sb) db[b.key()].copy_(b.value());
    }
    cast->to(at::kBFloat16);
    cast->eval();
    const FrozenGenerator frozen32(g);
    std::unique_ptr<FrozenGenerator> frozen16;
    std::string frozen16Error;
    try {
        frozen16 = std::make_unique<FrozenGenerator>(g, FrozenGenerator::Precision::BFloat16);
    } catch (const std::exception& e) {
        frozen16Error = e.what();
    }

    using Route = std::function<at::Tensor(const at::Tensor&)>;
    const std::vector<std::pair<std::string, Route>> routes{
        {"fp32", [&](const at::Tensor& z) { return g->forward(z); }},
        {"autocast-bf16",
         [&](const at::Tensor& z) {
             AutocastGuard autocast(c10::DeviceType::CPU, at::kBFloat16, true);
             return g->forward(z).to(at::kFloat);
         }},
        {"cast-bf16", [&](const at::Tensor& z) { return cast->forward(z.to(at::kBFloat16)).to(at::kFloat); }},
        {"frozen-fp32", [&](const at::Tensor& z) { return frozen32.forward(z); }},
        {"frozen-bf16",
         [&](const at::Tensor& z) {
             if (!frozen16) throw std::runtime_error(frozen16Error);
             return frozen16->forward(z);
         }},
    };
    std::vector<at::Tensor> seeds;
    for (uint64_t s = 0; s < 16; ++s) seeds.push_back(LatentSeed::draw(s, nz).view({1, nz, 1, 1}));
    std::vector<at::Tensor> reference;
    for (const auto& [name, route] : routes) {
        c10::InferenceMode guard;
        try {
            std::vector<at::Tensor> out;
            for (const at::Tensor& z : seeds) out.push_back(GifWriter::fromImages(route(z)));
            if (reference.empty()) reference = out;
            double worst = 1e9, sum = 0;
            for (size_t i = 0; i < out.size(); ++i) {
                const double p = psnr(reference[i], out[i]);
                worst = std::min(worst, p);
                sum += p;
            }
            for (int i = 0; i < 3; ++i) route(seeds[static_cast<size_t>(i)]);
            std::vector<double> ms;
            for (int i = 0; i < frames; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                route(seeds[static_cast<size_t>(i) % seeds.size()]);
                ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            }
            std::printf(
                "{\"route\":\"%s\",\"model\":\"%s\",\"threads\":%d,\"frames\":%d,\"ms_median\":%.2f,\"ms_p90\":%.2f,\"ms_min\":%.2f,\"psnr_min_db\":%.1f,"
                "\"psnr_mean_db\":%.1f}\n",
                name.c_str(), ck.empty() ? preset.c_str() : ck.c_str(), at::get_num_threads(), frames, percentile(ms, 0.5), percentile(ms, 0.9),
                percentile(ms, 0.0), worst, sum / static_cast<double>(out.size()));
        } catch (const std::exception& e) {
            std::string line = e.what();
            line = line.substr(0, line.find('\n'));
            std::printf("{\"route\":\"%s\",\"error\":\"%s\"}\n", name.c_str(), line.c_str());
        }
        std::fflush(stdout);
    }
    return 0;
}
