#include "cli/TrainCommand.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/ConsoleReporter.h"
#include "cli/FiniteNumber.h"
#include "model/Presets.h"
#include "train/RunDirectory.h"
#include "train/Trainer.h"
#include "util/AtomicFile.h"
#include "util/Errors.h"

namespace streetgan {
namespace {

std::atomic<bool> gStop{false};
void onSignal(int) { gStop.store(true); }

}  // namespace

CLI::App* TrainCommand::setup(CLI::App& parent) {
    app_ = parent.add_subcommand("train", "Train a DCGAN in the foreground, writing a run directory");
    auto* a = app_;
    a->add_option("--run-dir", runDir_, "Run directory (created if needed)")->required();
    a->add_option("--preset", preset_, "Model preset: tiny-32, naive-64, safe-64, safe-128, msls-128");
    a->add_option("--data", flags_.data, "Data source: synthetic (default) or a folder of photos (MSLS layout recognised)");
    auto* steps = a->add_option("--steps", flags_.steps, "Total optimiser steps of the run")->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
    auto* epochs = a->add_option("--epochs", flags_.epochs, "Total epochs of the run")->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    steps->excludes(epochs);
    a->add_option("--batch", flags_.batch, "Batch size")->check(CLI::Range(1, 65536));
    a->add_option("--seed", flags_.seed, "Seed of weights, data order and noise");
    a->add_option("--device", flags_.device, "auto | cpu | cuda | cuda:N");
    a->add_option("--config", configFile_, "JSON file with any run.json config keys")->check(CLI::ExistingFile);
    a->add_option("--log-every", flags_.logEvery, "Steps between metric events")->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
    a->add_option("--sample-every", flags_.sampleEvery, "Steps between sample grids (0: end only)")->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
    a->add_option("--checkpoint-every", flags_.checkpointEvery, "Steps between checkpoints (0: epoch ends and end only)")
        ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
    a->add_flag("--resume", resume_, "Continue from the run directory's latest checkpoint up to --steps/--epochs");
    a->add_option("--lr", flags_.lr, "Learning rate of both AdamW optimisers")->check(FiniteNumber())->check(CLI::Range(0.0, 10.0));
    a->add_option("--weight-decay", flags_.weightDecay, "AdamW weight decay")->check(FiniteNumber())->check(CLI::Range(0.0, 10.0));
    a->add_option("--real-label", flags_.realLabel, "Target for real images (0.9: one-sided label smoothing)")->check(FiniteNumber())->check(CLI::Range(0.0, 1.0));
    a->add_option("--fake-label", flags_.fakeLabel, "Target for fake images")->check(FiniteNumber())->check(CLI::Range(0.0, 1.0));
    a->add_option("--instance-noise", flags_.instanceNoise, "Std of instance noise on D's inputs")->check(FiniteNumber())->check(CLI::Range(0.0, 10.0));
    a->add_option("--instance-noise-steps", flags_.instanceNoiseSteps, "Decay instance noise to 0 over N steps");
    a->add_option("--amp", flags_.amp, "Mixed precision: off | bf16 | fp16 (CUDA)")->check(CLI::IsMember({"off", "bf16", "fp16"}));
    a->add_option("--threads", flags_.threads, "Torch intra-op threads (0: default)")->check(CLI::Range(0, 1024));
    a->add_flag("--channels-last,!--no-channels-last", flags_.channelsLast, "NHWC memory format (default on)");
    a->add_option("--loader-threads", flags_.loaderThreads, "Data loader threads")->check(CLI::Range(1, 256));
    a->add_option("--crop-factor", flags_.cropFactor, "Centre crop side in source pixels = factor x image size")->check(FiniteNumber())->check(CLI::Range(0.01, 64.0));
    a->add_option("--max-shift", flags_.maxShift, "Largest horizontal shift, fraction of the width")->check(FiniteNumber())->check(CLI::Range(0.0, 1.0));
    a->add_option("--aug-noise", flags_.augNoise, "Gaussian noise std added to real images ([0,1] units)")->check(FiniteNumber())->check(CLI::Range(0.0, 10.0));
    a->add_flag("--flip", flags_.flip, "Random horizontal mirror of real images");
    a->add_option("--cities", flags_.cities, "Keep only these cities (MSLS)")->delimiter(',');
    a->add_option("--exclude-cities", flags_.excludeCities, "Drop these cities (MSLS)")->delimiter(',');
    a->add_option("--max-per-sequence", flags_.maxPerSequence, "Cap of training images per sequence (0: none)")->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
    a->add_option("--validation-percent", flags_.validationPercent, "Hold out this share by key hash (never trained on)")->check(FiniteNumber())->check(CLI::Range(0.0, 99.0));
    a->add_option("--synthetic-images", flags_.syntheticImages, "Images per epoch of the synthetic set")->check(CLI::Range(int64_t{1}, int64_t{1} << 33));
    return app_;
}

int TrainCommand::execute() {
    TrainConfig cfg;
    cfg.model = Presets::get("naive-64");  // the reference model
    cfg.model.preset = "naive-64";
    if (resume_ && std::filesystem::exists(runDir_ + "/run.json")) {
        RunDirectory existing(runDir_, /*create=*/false);
        const auto run = existing.readRunJson();
        if (run.contains("config")) cfg.merge(run.at("config"));
    }
    if (!configFile_.empty()) {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(AtomicFile::read(configFile_));
        } catch (const nlohmann::json::exception& e) {
            throw ConfigError("config file '" + configFile_ + "' is not valid JSON (" + e.what() + ")");
        }
        cfg.merge(j);
    }
    auto given = [&](const char* name) { return app_->count(name) > 0; };
    if (given("--preset")) cfg.model = Presets::get(preset_);
    if (given("--data")) cfg.data = flags_.data;
    if (given("--steps")) cfg.steps = flags_.steps;
    if (given("--epochs")) {
        cfg.epochs = flags_.epochs;
        cfg.steps = 0;
    }
    if (given("--batch")) cfg.batch = flags_.batch;
    if (given("--seed")) cfg.seed = flags_.seed;
    if (given("--device")) cfg.device = flags_.device;
    if (given("--log-every")) cfg.logEvery = flags_.logEvery;
    if (given("--sample-every")) cfg.sampleEvery = flags_.sampleEvery;
    if (given("--checkpoint-every")) cfg.checkpointEvery = flags_.checkpointEvery;
    if (given("--lr")) cfg.lr = flags_.lr;
    if (given("--weight-decay")) cfg.weightDecay = flags_.weightDecay;
    if (given("--real-label")) cfg.realLabel = flags_.realLabel;
    if (given("--fake-label")) cfg.fakeLabel = flags_.fakeLabel;
    if (given("--instance-noise")) cfg.instanceNoise = flags_.instanceNoise;
    if (given("--instance-noise-steps")) cfg.instanceNoiseSteps = flags_.instanceNoiseSteps;
    if (given("--amp")) cfg.amp = flags_.amp;
    if (given("--threads")) cfg.threads = flags_.threads;
    if (given("--channels-last") || given("--no-channels-last")) cfg.channelsLast = flags_.channelsLast;
    if (given("--loader-threads")) cfg.loaderThreads = flags_.loaderThreads;
    if (given("--crop-factor")) cfg.cropFactor = flags_.cropFactor;
    if (given("--max-shift")) cfg.maxShift = flags_.maxShift;
    if (given("--aug-noise")) cfg.augNoise = flags_.augNoise;
    if (given("--flip")) cfg.flip = flags_.flip;
    if (given("--cities")) cfg.cities = flags_.cities;
    if (given("--exclude-cities")) cfg.excludeCities = flags_.excludeCities;
    if (given("--max-per-sequence")) cfg.maxPerSequence = flags_.maxPerSequence;
    if (given("--validation-percent")) cfg.validationPercent = flags_.validationPercent;
    if (given("--synthetic-images")) cfg.syntheticImages = flags_.syntheticImages;
    cfg.validate();

    gStop = false;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    ConsoleReporter reporter(::isatty(STDERR_FILENO) != 0);
    Trainer trainer(cfg, runDir_, resume_, &reporter);
    trainer.run(gStop);
    return gStop.load() ? static_cast<int>(ExitCode::Interrupted) : 0;
}

}  // namespace streetgan
