#include "cli/BenchCommand.h"

#include <ATen/CPUGeneratorImpl.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "data/BatchLoader.h"
#include "data/SyntheticSource.h"
#include "model/Presets.h"
#include "train/TrainStep.h"
#include "train/Trainer.h"

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
    train_->add_flag("--json", json_, "One JSON document on stdout");
    return bench;
}

int BenchCommand::execute() {
    TrainConfig cfg;
    cfg.model = Presets::get(preset_);
    cfg.batch = batch_;
    cfg.amp = amp_;
    cfg.channelsLast = channelsLast_;
    cfg.validate();
    if (threads_ > 0) {
        torch::set_num_threads(threads_);
    }
    const torch::Device device = Trainer::selectDevice(device_);
    torch::manual_seed(0);
    TrainStep step(cfg, device);
    LoaderOptions lo;
    lo.batch = batch_;
    lo.imgSize = static_cast<int>(cfg.model.imgSize);
    lo.nz = cfg.model.nz;
    Batch batch = BatchLoader(std::make_shared<SyntheticSource>(0, batch_), lo).make(0);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
    auto run = [&](int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
            batch.noise = torch::randn({batch_, cfg.model.nz, 1, 1}, gen);  // fresh noise per step, as in training
            step.step(batch);
        }
        step.drain();  // one host synchronisation at the end
    };
    run(warmup_);
    const auto t0 = std::chrono::steady_clock::now();
    run(steps_);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double ips = static_cast<double>(steps_ * batch_) / s;
    nlohmann::json j = {{"preset", preset_}, {"batch", batch_}, {"threads", torch::get_num_threads()}, {"steps", steps_}, {"warmup", warmup_},
                        {"device", device.str()}, {"amp", amp_}, {"channels_last", channelsLast_}, {"seconds", s}, {"images_per_s", ips}};
    if (json_) std::cout << j.dump() << "\n";
    else std::printf("%s batch %lld, %d threads, %s: %.1f images/s (%lld steps in %.2f s)\n", preset_.c_str(), static_cast<long long>(batch_),
                     torch::get_num_threads(), device.str().c_str(), ips, static_cast<long long>(steps_), s);
    return 0;
}

}  // namespace streetgan
