#include "trainer/InvertCommand.h"

#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "base/latent/LatentSession.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/export/ImageGrid.h"
#include "ml/invert/InversionTarget.h"
#include "trainer/FiniteNumber.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {

// An output's folder must exist before the optimisation starts (the file itself is written at the
// end, atomically).
void checkOutput(const std::string& path, const std::string& option, const std::string& extension) {
    if (path.empty()) return;
    const fs::path p(path);
    if (p.extension() != extension) throw ConfigError(option + " '" + path + "' must name a " + extension + " file");
    std::error_code ec;
    const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    if (!fs::is_directory(dir, ec)) throw IoError(option + " '" + path + "': the folder '" + dir.string() + "' does not exist; create it first");
    if (fs::is_directory(p, ec)) throw IoError(option + " '" + path + "' is a folder; give a file name");
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

}  // namespace

CLI::App* InvertCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("invert", "Project a photo into a checkpoint's generator: the z whose image looks most like it");
    a->add_option("--checkpoint", checkpoint_, "StreetGAN or reference Python checkpoint")->required();
    a->add_option("--image", image_, "The photo (JPEG, PNG or WebP)")->required();
    a->add_option("--crop", crop_, "x,y,w,h: invert this rectangle of the photo (source pixels)");
    a->add_flag("--json", json_, "One JSON document on stdout: z, psnr, ssim, seconds, ...");
    a->add_option("--out", out_, "PNG of the target and the reconstruction side by side");
    a->add_option("--session-out", sessionOut_, "Session file (docs/cli.md) with z as its one keyframe, for `render` and the explorer");
    a->add_option("--restarts", options_.restarts, "Optimisations side by side; the best is kept")->capture_default_str()->check(CLI::Range(1, 64));
    a->add_option("--steps", options_.steps, "Adam steps of the z kept (all restarts run the first --explore of them)")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    a->add_option("--explore", options_.explore, "Fraction of the steps all restarts run before the best goes on alone (1: all to the end)")
        ->capture_default_str()
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 1.0));
    a->add_option("--candidates", options_.candidates, "Random z tried for each restart's start")->capture_default_str()->check(CLI::Range(1, 4096));
    a->add_option("--seed", options_.seed, "Seed of the random starts and noise (same seed, same result)")->capture_default_str();
    a->add_option("--lr", options_.lr, "Peak learning rate")->capture_default_str()->check(FiniteNumber())->check(CLI::Range(1e-6, 10.0));
    a->add_option("--pixel", pixel_, "Pixel distance: l2 (mean squared) or l1 (mean absolute)")->capture_default_str()->check(CLI::IsMember({"l2", "l1"}));
    a->add_option("--ssim-weight", options_.ssimWeight, "Weight of 1 - SSIM")->capture_default_str()->check(FiniteNumber())->check(CLI::Range(0.0, 1000.0));
    a->add_option("--feature-weight", options_.featureWeight, "Weight of the discriminator's feature distance (checkpoints with D)")
        ->capture_default_str()
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 1000.0));
    a->add_option("--prior-weight", options_.priorWeight, "Weight of the prior keeping |z|^2 near nz")
        ->capture_default_str()
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 1000.0));
    a->add_flag("--plain", plain_, "Plain z optimisation of the pixel distance instead (the baseline: one start; keeps --steps and --seed)");
    models_.addOptions(a);
    return a;
}

int InvertCommand::execute() {
    const auto t0 = std::chrono::steady_clock::now();
    models_.applyThreads();
    // Everything that can be refused is checked before the optimisation.
    LatentInverter::Options o = plain_ ? LatentInverter::Options::plain(options_.steps, options_.seed) : options_;
    if (!plain_) o.pixel = pixel_ == "l1" ? LatentInverter::PixelLoss::L1 : LatentInverter::PixelLoss::L2;
    o.validate();
    const std::optional<CropRect> crop = crop_.empty() ? std::nullopt : std::optional<CropRect>(InversionTarget::parseCrop(crop_));
    checkOutput(out_, "--out", ".png");
    checkOutput(sessionOut_, "--session-out", ".json");

    models_.load(checkpoint_);
    const CheckpointData& ck = models_.data;
    const Generator& g = models_.g;
    const Discriminator& d = models_.d;
    const int side = static_cast<int>(ck.model.imgSize);
    const at::Tensor target = InversionTarget::load(image_, side, crop);

    const LatentInverter inverter(g, d, o);
    const int every = std::max(1, o.steps / 10);
    const LatentInverter::Result r = inverter.invert(target, [&](const LatentInverter::Progress& p) {
        if (p.step % every == 0 || p.step == p.steps)
            std::cerr << "step " << p.step << "/" << p.steps << ": loss " << fixed(p.loss, 4) << ", best PSNR " << fixed(p.bestPsnr, 2) << " dB\n";
    });
    for (size_t i = 0; i < r.restartPsnr.size(); ++i)
        std::cerr << "restart " << i + 1 << "/" << r.restartPsnr.size() << (r.restartPsnr.size() > 1 && o.explore < 1 ? " after exploring" : "") << ": PSNR "
                  << fixed(r.restartPsnr[i], 2) << " dB, loss " << fixed(r.restartLoss[i], 4) << (static_cast<int>(i) == r.bestRestart ? " (best)" : "")
                  << "\n";

    if (!out_.empty()) {
        const at::Tensor pair = at::stack({target, r.reconstruction}).add(1).div(2).clamp(0, 1);
        ImageGrid::writePng(ImageGrid::makeGrid(pair, 2, 2, false), out_);
    }
    const std::vector<float> z(r.z.data_ptr<float>(), r.z.data_ptr<float>() + r.z.numel());
    if (!sessionOut_.empty()) {
        // One keyframe, no loop: the session's one frame is the reconstruction; the explorer adds
        // keyframes to it. The checkpoint is absolute, so the file works from any folder.
        LatentSession s;
        s.checkpoint = fs::absolute(checkpoint_).lexically_normal().string();
        s.checkpointSha256 = ContentHash::sha256File(checkpoint_);
        s.keyframes.push_back({std::nullopt, std::vector<double>(z.begin(), z.end()), std::nullopt});
        s.loop = false;
        s.write(sessionOut_);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (json_) {
        nlohmann::json j = {{"z", z},
                            {"psnr", r.psnr},
                            {"ssim", r.ssim},
                            {"seconds", r.seconds},
                            {"total_seconds", seconds},
                            {"restarts", o.restarts},
                            {"steps", o.steps},
                            {"candidates", o.candidates},
                            {"explore", o.explore},
                            {"generator_steps", r.generatorSteps},
                            {"seed", o.seed},
                            {"method", plain_ ? "plain" : "default"},
                            {"discriminator_features", r.usedDiscriminator},
                            {"restart_psnr", r.restartPsnr},
                            {"best_restart", r.bestRestart},
                            {"checkpoint", checkpoint_},
                            {"image", image_}};
        if (crop) j["crop"] = {crop->x, crop->y, crop->w, crop->h};
        if (!out_.empty()) j["out"] = out_;
        if (!sessionOut_.empty()) j["session"] = sessionOut_;
        std::cout << j.dump() << "\n";
    } else {
        std::cout << "PSNR " << fixed(r.psnr, 2) << " dB, SSIM " << fixed(r.ssim, 4) << ", " << fixed(r.seconds, 2) << " s (" << r.generatorSteps
                  << " generator steps, " << o.restarts << (o.restarts == 1 ? " start" : " restarts")
                  << (r.usedDiscriminator ? ", D features" : ", no D in the checkpoint") << ")\n";
    }
    return 0;
}

}  // namespace streetgan
