#include "trainer/BenchCommand.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include <atomic>
#include <fstream>
#include <thread>

#include <sys/resource.h>

#include "base/dataset/DatasetIndex.h"
#include "base/model/ModelFlops.h"
#include "base/model/Presets.h"
#include "base/util/BuildFeatures.h"
#include "base/util/GpuPeak.h"
#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/DataSources.h"
#if STREETGAN_WITH_PHOTOS
#include "ml/dataset/ImageDecoder.h"
#endif
#include "ml/dataset/SyntheticSource.h"
#include "ml/model/FusedBnAct.h"
#include "ml/train/TrainStep.h"
#include "ml/util/DeviceChoice.h"
#include "ml/util/GpuName.h"
#include "trainer/S3DataOptions.h"

namespace streetgan {

CLI::App* BenchCommand::setup(CLI::App& parent) {
    auto* bench = parent.add_subcommand("bench", "Benchmarks (figures, never pass/fail)");
    bench->require_subcommand(1);
    train_ = bench->add_subcommand("train", "Images/s of the reference training step");
    train_->add_option("--preset", preset_, "Model preset");
    train_->add_option("--batch", batch_, "Batch size")->check(CLI::Range(int64_t{1}, int64_t{65536}));
    train_->add_option("--threads", threads_, "Torch intra-op threads (0: default)")->check(CLI::Range(0, 1024));
    train_->add_option("--steps", steps_, "Timed steps")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    train_->add_option("--warmup", warmup_, "Untimed steps first")->check(CLI::Range(int64_t{0}, int64_t{1000000}));
    train_->add_option("--device", device_, "cpu | cuda | auto");
    train_->add_option("--amp", amp_, "off | bf16 | fp16")->check(CLI::IsMember({"off", "bf16", "fp16"}));
    train_->add_flag("--channels-last,!--no-channels-last", channelsLast_, "NHWC memory format (default on, as in training)");
    train_->add_flag("--cuda-graph", cudaGraph_, "Capture the step as a CUDA graph and replay it (as train --cuda-graph)");
    train_->add_flag("--fused-bn-act", fusedBnAct_, "BatchNorm and activation as one kernel (as train --fused-bn-act)");
    train_->add_option("--repeat", repeat_, "Timed runs of --steps each, after one warm-up (min, median, max reported)")->check(CLI::Range(1, 1000));
    train_->add_option("--peak-tflops", peakTflops_, "The device's peak TFLOP/s for MFU (default: the GPU's data-sheet figure where known)")
        ->check(CLI::Range(0.001, 1e6));
    train_->add_flag("--json", json_, "One JSON document on stdout");
    loader_ = bench->add_subcommand("loader", "Augmented images/s through the training loader (reference augmentation)");
    loader_->add_option("--data", data_, "synthetic, a folder of photos, a packed cache, or s3://bucket/prefix (--s3-cache-gb 0: every image from the bucket)");
    S3DataOptions::add(*loader_, s3_);
    loader_->add_option("--size", size_, "Image side in pixels")->check(CLI::IsMember({32, 64, 128, 256}));
    loader_->add_option("--threads", loaderThreads_, "Loader threads")->check(CLI::Range(1, 256));
    loader_->add_option("--batch", batch_, "Batch size")->check(CLI::Range(int64_t{1}, int64_t{65536}));
    loader_->add_option("--seconds", seconds_, "Measuring time")->check(CLI::Range(0.1, 3600.0));
    loader_->add_flag("--decode-only", decodeOnly_, "Bare JPEG decodes at 1/4 scale (DCT domain) of the same files (the ceiling)");
    loader_->add_option("--feed", feed_, "A step's images/s: also say how many cores the loader needs to feed it")->check(CLI::Range(1.0, 1e9));
    loader_->add_flag("--json", json_, "One JSON document on stdout");
    return bench;
}

int BenchCommand::execute() {
    if (loader_->parsed()) return decodeOnly_ ? decodeCeiling() : loader();
    return train();
}

namespace {

void report(bool json, const nlohmann::json& j, const std::string& text) {
    if (json)
        std::cout << j.dump() << "\n";
    else
        std::cout << text << "\n";
}

/// CPU seconds this process has used, all threads (user + system).
double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// The figures a user sizes a machine by: images per CPU-second (one core's rate) and, for a step
/// rate `feed` (0: none), the cores that rate needs.
void addPerCore(nlohmann::json& j, std::string& text, int64_t images, double cpu, double feed) {
    const double perCore = cpu > 0 ? static_cast<double>(images) / cpu : 0;
    j["cpu_seconds"] = cpu;
    j["images_per_core_s"] = perCore;
    char line[160];
    std::snprintf(line, sizeof line, "; %.0f images/s per core (%.1f CPU-s)", perCore, cpu);
    text += line;
    if (feed > 0 && perCore > 0) {
        const double cores = feed / perCore;
        j["feed_images_per_s"] = feed;
        j["cores_to_feed"] = cores;
        std::snprintf(line, sizeof line, "; feeding %.0f images/s takes about %.1f cores", feed, cores);
        text += line;
    }
}

}  // namespace

int BenchCommand::loader() {
    TrainConfig cfg = s3_;
    cfg.model.imgSize = size_;
    cfg.batch = batch_;
    auto source = DataSources::open(data_, cfg);
    LoaderOptions lo;
    lo.batch = batch_;
    lo.imgSize = size_;
    lo.nz = cfg.model.nz;
    lo.threads = loaderThreads_;
    lo.prefetch = 2 * loaderThreads_ + 2;
    BatchLoader loader(source, lo);
    loader.start(0);
    for (int i = 0; i < loaderThreads_; ++i) loader.next();  // warm-up: threads started, caches touched
    int64_t images = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = cpuSeconds();
    double s = 0;
    while ((s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()) < seconds_) images += loader.next().size();
    const double cpu = cpuSeconds() - cpu0;
    loader.stop();
    const double ips = static_cast<double>(images) / s;
    nlohmann::json j = {{"images_per_s", ips}, {"threads", loaderThreads_}, {"size", size_}, {"source", source->describe()}, {"batch", batch_}, {"seconds", s}};
    std::string text =
        std::to_string(ips) + " images/s (" + std::to_string(loaderThreads_) + " threads, " + std::to_string(size_) + " px) from " + source->describe();
    addPerCore(j, text, images, cpu, feed_);
    report(json_, j, text);
    return 0;
}

int BenchCommand::decodeCeiling() {
#if !STREETGAN_WITH_PHOTOS
    BuildFeatures::missing("`bench loader --decode-only`", BuildFeatures::Feature::Photos);
#else
    const DatasetIndex index = DatasetIndex::scanFolder(data_, IndexOptions{});
    index.requireNonEmpty(data_);
    std::atomic<int64_t> decoded{0};
    std::atomic<bool> done{false};
    std::vector<std::thread> workers;
    DecodeRequest request;
    request.forceReduction = 4;
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = cpuSeconds();
    for (int t = 0; t < loaderThreads_; ++t) {
        workers.emplace_back([&, t] {
            for (int64_t i = t; !done.load(); i += loaderThreads_) {
                const auto& e = index.entries()[static_cast<size_t>(i % index.size())];
                std::ifstream in(data_ + "/" + e.path, std::ios::binary);
                const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
                try {
                    ImageDecoder::decode(bytes.data(), bytes.size(), request, e.path);
                    ++decoded;
                } catch (const BadImageError&) {  // not counted: the ceiling is of images that decode
                }
            }
        });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    done = true;
    for (auto& w : workers) w.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpuSeconds() - cpu0;
    const double ips = static_cast<double>(decoded.load()) / s;
    nlohmann::json j = {{"images_per_s", ips}, {"threads", loaderThreads_}, {"size", size_}, {"source", data_}, {"decode_only", true}, {"seconds", s}};
    std::string text = std::to_string(ips) + " 1/4-scale JPEG decodes/s (" + std::to_string(loaderThreads_) + " threads)";
    addPerCore(j, text, decoded.load(), cpu, feed_);
    report(json_, j, text);
    return 0;
#endif
}

int BenchCommand::train() {
    TrainConfig cfg;
    cfg.model = Presets::get(preset_);
    cfg.batch = batch_;
    cfg.amp = amp_;
    cfg.channelsLast = channelsLast_;
    cfg.cudaGraph = cudaGraph_;
    cfg.fusedBnAct = fusedBnAct_;
    cfg.ema = 0;  // the reference's step, measured against the reference's (which has no G_ema)
    cfg.validate();
    if (threads_ > 0) {
        torch::set_num_threads(threads_);
    }
    const torch::Device device = DeviceChoice::select(device_);
    if (device.is_cuda()) at::globalContext().setBenchmarkCuDNN(true);  // as training does (TrainingRun)
    torch::manual_seed(0);
    TrainStep step(cfg, device);
    LoaderOptions lo;
    lo.batch = batch_;
    lo.imgSize = static_cast<int>(cfg.model.imgSize);
    lo.nz = cfg.model.nz;
    // As training feeds a GPU: pinned uint8 pixels, normalised and noise drawn on the device.
    lo.pinMemory = lo.deviceSide = device.is_cuda();
    Batch batch = BatchLoader(std::make_shared<SyntheticSource>(0, batch_), lo).make(0);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
    uint64_t seed = 1;
    auto run = [&](int64_t n) {
        for (int64_t i = 0; i < n; ++i) {  // fresh noise per step, as in training (z from the host, pinned as the loader's)
            batch.deviceSeed = ++seed;
            batch.noise = torch::randn({batch_, cfg.model.nz, 1, 1}, gen, torch::TensorOptions().pinned_memory(lo.pinMemory));
            step.step(batch);
        }
        step.drain();  // one host synchronisation at the end
    };
    run(warmup_);
    std::vector<double> rates;
    for (int r = 0; r < repeat_; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        run(steps_);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        rates.push_back(static_cast<double>(steps_ * batch_) / s);
    }
    std::vector<double> sorted = rates;
    std::sort(sorted.begin(), sorted.end());
    const double ips = sorted[sorted.size() / 2];  // the median (the upper one of an even count)
    // MFU: the step's model FLOPs (ModelFlops: as TrainStep runs it) at the median rate over the
    // chip's peak in the precision the convolutions run in (fp32 convolutions use TF32 on CUDA).
    const double gflopPerImage = ModelFlops::of(cfg.model).stepPerImage() / 1e9;
    const double tflops = ips * gflopPerImage / 1e3;
    const std::string gpu = GpuName::of(device);
    const std::string precision = amp_ != "off" ? amp_ : device.is_cuda() && at::globalContext().allowTF32CuDNN() ? "tf32" : "fp32";
    const std::optional<double> peak = peakTflops_ > 0 ? std::optional<double>(peakTflops_) : GpuPeak::tflops(gpu, precision);
    nlohmann::json j = {{"preset", preset_},
                        {"batch", batch_},
                        {"threads", torch::get_num_threads()},
                        {"steps", steps_},
                        {"warmup", warmup_},
                        {"repeat", repeat_},
                        {"device", device.str()},
                        {"gpu", gpu},
                        {"amp", amp_},
                        {"precision", precision},
                        {"channels_last", channelsLast_},
                        {"cuda_graph", cudaGraph_},
                        {"fused_bn_act", fusedBnAct_ && FusedBnAct::available(device)},  // where the build has the kernels
                        {"cudnn_benchmark", device.is_cuda()},
                        {"aug_noise", batch.augNoiseStd},
                        {"seconds", static_cast<double>(steps_ * batch_) / ips},  // of the median run
                        {"images_per_s", ips},
                        {"images_per_s_min", sorted.front()},
                        {"images_per_s_max", sorted.back()},
                        {"images_per_s_runs", rates},
                        {"model_gflop_per_image", gflopPerImage},
                        {"tflops", tflops},
                        {"peak_tflops", peak ? nlohmann::json(*peak) : nlohmann::json(nullptr)},
                        {"mfu", peak ? nlohmann::json(tflops / *peak) : nlohmann::json(nullptr)}};
    if (json_) {
        std::cout << j.dump() << "\n";
        return 0;
    }
    std::printf("%s batch %lld, %d threads, %s%s: %.1f images/s median of %d runs of %lld steps (min %.1f, max %.1f); %.2f GFLOP an image, %.3g TFLOP/s",
                preset_.c_str(), static_cast<long long>(batch_), torch::get_num_threads(), device.str().c_str(), gpu.empty() ? "" : (" " + gpu).c_str(), ips,
                repeat_, static_cast<long long>(steps_), sorted.front(), sorted.back(), gflopPerImage, tflops);
    if (peak) std::printf(", MFU %.1f%% of %.0f TFLOP/s %s", 100.0 * tflops / *peak, *peak, precision.c_str());
    std::printf("\n");
    return 0;
}

}  // namespace streetgan
