#include "trainer/TrainCommand.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/daemon/ControlServer.h"
#include "base/daemon/ControlSocket.h"
#include "base/daemon/DaemonLauncher.h"
#include "base/daemon/DaemonReadiness.h"
#include "base/daemon/RunLock.h"
#include "base/daemon/TrainControl.h"
#include "base/model/Presets.h"
#include "base/run/RunDirectory.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "ml/dist/DistributedContext.h"
#include "ml/train/Trainer.h"
#include "ml/util/DeviceChoice.h"
#include "trainer/ConsoleReporter.h"
#include "trainer/FiniteNumber.h"

namespace streetgan {
namespace {

std::atomic<bool> gStop{false};
void onSignal(int) { gStop.store(true); }

}  // namespace

CLI::App* TrainCommand::setup(CLI::App& parent) {
    app_ = mode_ == Mode::Train ? parent.add_subcommand("train", "Train a DCGAN in the foreground, writing a run directory")
                                : parent.add_subcommand("start", "Start a training run as a daemon (--detach) and return at once");
    auto* a = app_;
    if (mode_ == Mode::Start) {
        a->add_flag("--detach", detach_, "Run in a session of its own with a pid file, log and control socket (required)")->required();
        a->add_option("--wait", startWait_, "Seconds to wait for the daemon to be training before returning")
            ->check(FiniteNumber())
            ->check(CLI::Range(0.0, 86400.0));
    } else {
        a->add_option("--daemon-fd", daemonFd_, "internal: readiness pipe of start --detach")->group("");
    }
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
    a->add_option("--dist-timeout", distTimeout_, "Distributed runs: seconds a rank waits for the others before it fails (rendezvous, every collective)")
        ->check(FiniteNumber())
        ->check(CLI::Range(1.0, 86400.0));
    a->add_option("--dist-backend", distBackend_,
                  "Distributed runs: auto (NCCL on CUDA, Gloo on the CPU) | nccl | gloo (also on CUDA, through host copies: several ranks on one GPU)")
        ->check(CLI::IsMember({"auto", "nccl", "gloo"}));
    a->add_option("--lr", flags_.lr, "Learning rate of both AdamW optimisers")
        ->check(FiniteNumber())
        ->check(CLI::Range(TrainConfig::kLrMin, TrainConfig::kLrMax));
    a->add_option("--weight-decay", flags_.weightDecay, "AdamW weight decay")->check(FiniteNumber())->check(CLI::Range(0.0, 10.0));
    a->add_option("--real-label", flags_.realLabel, "Target for real images (0.9: one-sided label smoothing)")
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 1.0));
    a->add_option("--fake-label", flags_.fakeLabel, "Target for fake images")->check(FiniteNumber())->check(CLI::Range(0.0, 1.0));
    a->add_option("--instance-noise", flags_.instanceNoise, "Std of instance noise on D's inputs")->check(FiniteNumber())->check(CLI::Range(0.0, 10.0));
    a->add_option("--instance-noise-steps", flags_.instanceNoiseSteps, "Decay instance noise to 0 over N steps");
    a->add_option("--amp", flags_.amp, "Mixed precision: off | bf16 | fp16 (CUDA)")->check(CLI::IsMember({"off", "bf16", "fp16"}));
    a->add_option("--ema", flags_.ema, "Per-step decay of the averaged generator G_ema (0: off; default 0.999, ramped up as StyleGAN2)")
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 0.999999));
    a->add_option("--diffaugment", flags_.diffAugment, "DiffAugment policy for D's inputs: a subset of color,translation,cutout (\"\": off)");
    a->add_option("--r1", flags_.r1Gamma, "R1 gradient penalty gamma on real images (0: off)")->check(FiniteNumber())->check(CLI::Range(0.0, 1e6));
    a->add_option("--r1-every", flags_.r1Every, "Apply R1 every N D steps, scaled by N (lazy regularisation)")->check(CLI::Range(int64_t{1}, int64_t{1000000}));
    a->add_option("--threads", flags_.threads, "Torch intra-op threads (0: default)")->check(CLI::Range(0, 1024));
    a->add_flag("--channels-last,!--no-channels-last", flags_.channelsLast, "NHWC memory format (default on)");
    a->add_flag("--cuda-graph,!--no-cuda-graph", flags_.cudaGraph,
                "CUDA: capture the step once as a CUDA graph and replay it (not with DiffAugment, R1 or launch)");
    a->add_option("--loader-threads", flags_.loaderThreads, "Data loader threads")->check(CLI::Range(1, 256));
    a->add_option("--crop-factor", flags_.cropFactor, "Centre crop side in source pixels = factor x image size")
        ->check(FiniteNumber())
        ->check(CLI::Range(0.01, 64.0));
    a->add_option("--max-shift", flags_.maxShift, "Largest horizontal shift, fraction of the width")->check(FiniteNumber())->check(CLI::Range(0.0, 1.0));
    a->add_option("--aug-noise", flags_.augNoise, "Gaussian noise std added to real images ([0,1] units)")->check(FiniteNumber())->check(CLI::Range(0.0, 10.0));
    a->add_flag("--flip", flags_.flip, "Random horizontal mirror of real images");
    a->add_option("--cities", flags_.cities, "Keep only these cities (MSLS)")->delimiter(',');
    a->add_option("--exclude-cities", flags_.excludeCities, "Drop these cities (MSLS)")->delimiter(',');
    a->add_option("--max-per-sequence", flags_.maxPerSequence, "Cap of training images per sequence (0: none)")
        ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
    a->add_option("--validation-percent", flags_.validationPercent, "Hold out this share by key hash (never trained on)")
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 99.0));
    a->add_option("--synthetic-images", flags_.syntheticImages, "Images per epoch of the synthetic set")->check(CLI::Range(int64_t{1}, int64_t{1} << 33));
    a->add_option("--metric-every-checkpoints", flags_.metricEveryCheckpoints, "Metrics (SWD, FID/KID/PR) every N checkpoints (0: off)")
        ->check(CLI::Range(int64_t{0}, int64_t{1000000000}));
    a->add_option("--metric-features", flags_.metricFeatures, "TorchScript feature model for metrics (clean-fid's inception-2015-12-05.pt)");
    a->add_option("--metric-samples", flags_.metricSamples, "Generated (and real) images per metric evaluation")
        ->check(CLI::Range(int64_t{2}, int64_t{10000000}));
    a->add_option("--metrics", flags_.metrics, "Metrics at checkpoints: fid,kid,pr,swd (any subset)")
        ->delimiter(',')
        ->check(CLI::IsMember({"fid", "kid", "pr", "swd"}));
    a->add_option("--metric-swd-samples", flags_.metricSwdSamples, "swd: generated (and real) images per evaluation")
        ->check(CLI::Range(int64_t{2}, int64_t{1000000}));
    a->add_option("--metric-cache-dir", flags_.metricCacheDir, "Real-feature cache folder (default $STREETGAN_FID_CACHE or ~/.cache/streetgan/fid)");
    return app_;
}

int TrainCommand::execute() {
    TrainConfig cfg;
    cfg.model = Presets::get("naive-64");  // the reference model
    cfg.model.preset = "naive-64";
    nlohmann::json resumedConfig;  // the run's own settings, which a resume continues from
    if (resume_ && std::filesystem::exists(runDir_ + "/run.json")) {
        RunDirectory existing(runDir_, /*create=*/false);
        const auto run = existing.readRunJson();
        if (run.contains("config")) {
            resumedConfig = run.at("config");
            cfg.merge(resumedConfig);
        }
    }
    auto given = [&](const char* name) { return app_->count(name) > 0; };
    if (!configFile_.empty()) {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(AtomicFile::read(configFile_));
        } catch (const nlohmann::json::exception& e) {
            throw ConfigError("config file '" + configFile_ + "' is not valid JSON (" + e.what() + ")");
        }
        // --preset replaces the file's preset, not the file's explicit nz/ngf/ndf/...: merge() sets
        // the preset first and lets explicit keys override it (applying --preset after the merge
        // silently dropped them).
        if (given("--preset") && j.is_object()) j["preset"] = preset_;
        cfg.merge(j);
    } else if (given("--preset")) {
        cfg.model = Presets::get(preset_);
    }
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
    if (given("--ema")) cfg.ema = flags_.ema;
    if (given("--diffaugment")) cfg.diffAugment = flags_.diffAugment;
    if (given("--r1")) cfg.r1Gamma = flags_.r1Gamma;
    if (given("--r1-every")) cfg.r1Every = flags_.r1Every;
    if (given("--threads")) cfg.threads = flags_.threads;
    if (given("--channels-last") || given("--no-channels-last")) cfg.channelsLast = flags_.channelsLast;
    if (given("--cuda-graph") || given("--no-cuda-graph")) cfg.cudaGraph = flags_.cudaGraph;
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
    if (given("--metric-every-checkpoints")) cfg.metricEveryCheckpoints = flags_.metricEveryCheckpoints;
    if (given("--metric-features")) cfg.metricFeatures = flags_.metricFeatures;
    if (given("--metric-samples")) cfg.metricSamples = flags_.metricSamples;
    if (given("--metrics")) cfg.metrics = flags_.metrics;
    if (given("--metric-cache-dir")) cfg.metricCacheDir = flags_.metricCacheDir;
    if (given("--metric-swd-samples")) cfg.metricSwdSamples = flags_.metricSwdSamples;
    cfg.validate();
    if (resumedConfig.is_object()) cfg.checkResume(resumedConfig, runDir_ + "/run.json");

    if (mode_ == Mode::Start && DistributedContext::Env::fromEnvironment())
        throw ConfigError(
            "start --detach cannot be one rank of a distributed run (WORLD_SIZE is set): run `streetgan-trainer launch ... -- train ...` instead");
    if (mode_ == Mode::Start) {
        const auto r = DaemonLauncher::launch(cfg, runDir_, resume_, std::chrono::seconds(static_cast<int64_t>(startWait_)));
        if (!r.ready)
            std::cerr << "streetgan-trainer: the trainer is still starting after " << startWait_ << " s; follow it with `streetgan-trainer attach " << r.runDir
                      << "` (log: " << r.runDir << "/trainer.log)\n";
        std::cout << r.runDir << std::endl;
        return 0;
    }
    if (daemonFd_ < 0) return runForeground(cfg);
    DaemonReadiness readiness(daemonFd_, nullptr);
    try {
        return runForeground(cfg, &readiness);
    } catch (const std::exception& e) {
        readiness.fail(exitCodeFor(e), e.what());
        throw;
    }
}

int TrainCommand::runForeground(const TrainConfig& cfg, DaemonReadiness* readiness) {
    gStop = false;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    if (readiness) std::signal(SIGHUP, SIG_IGN);
    // Distributed (torchrun's environment): rank 0 alone owns the run directory, its lock and the
    // control socket; it takes the lock before the rendezvous, so a busy run fails at once.
    const auto env = DistributedContext::Env::fromEnvironment();
    const bool root = !env || env->rank == 0;
    std::optional<RunLock> lock;
    TrainControl control;
    std::optional<ControlServer> server;
    if (root) {
        const RunDirectory created(runDir_, /*create=*/true);  // makes the run's folders before the lock file goes in
        lock.emplace(runDir_);
        server.emplace(ControlSocket::pathIn(runDir_), control);
    }
    std::unique_ptr<DistributedContext> dist;
    if (env)
        dist = std::make_unique<DistributedContext>(*env, distBackend_, DistributedContext::rankDevice(cfg.device, *env),
                                                    std::chrono::milliseconds(static_cast<int64_t>(distTimeout_ * 1000)));
    // The daemon's log is a file: plain lines, never the terminal bar.
    ConsoleReporter reporter(!readiness && ::isatty(STDERR_FILENO) != 0);
    TrainObserver* observer = root ? &reporter : nullptr;
    if (readiness) {
        readiness->setInner(&reporter);
        observer = readiness;
    }
    if (root) {  // the settings first, in the log or on the terminal, where the progress lines go
        const std::string settings = "settings: " + cfg.summary() + "\n";
        std::fputs(settings.c_str(), readiness || ::isatty(STDERR_FILENO) == 0 ? stdout : stderr);
        std::fflush(stdout);
    }
    Trainer trainer(cfg, runDir_, resume_, observer);
    if (root) trainer.setControl(&control);
    trainer.setDistributed(dist.get());
    try {
        trainer.run(gStop);
    } catch (const IoError& e) {
        // A full disk ends a run between checkpoints: say how to go on once there is room (the
        // checkpoint and the event log are intact, see AtomicFile and EventLog).
        const std::string what = e.what();
        if (what.find(AtomicFile::kDiskFull) == std::string::npos) throw;
        throw IoError(what + "; then continue the run with --resume (it goes on from its last checkpoint)");
    }
    return gStop.load() ? static_cast<int>(ExitCode::Interrupted) : 0;
}

}  // namespace streetgan
