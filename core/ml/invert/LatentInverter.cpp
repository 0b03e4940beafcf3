#include "ml/invert/LatentInverter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/autograd.h>

#include "base/util/Errors.h"
#include "ml/export/FrameRenderer.h"
#include "ml/invert/ImageSimilarity.h"
#include "ml/util/ShapeText.h"

namespace streetgan {
namespace {

void requireRange(const char* name, double v, double lo, double hi) {
    if (!std::isfinite(v) || v < lo || v > hi)
        throw ConfigError(std::string("inversion option ") + name + " must lie in " + std::to_string(lo) + ".." + std::to_string(hi) + " (got " +
                          std::to_string(v) + ")");
}

// What one loss evaluation needs besides the images: the target and its D features.
struct LossContext {
    explicit LossContext(const LatentInverter::Options& options) : o(options) {}
    const LatentInverter::Options& o;
    at::Tensor target;                    // (1, 3, S, S) in [-1, 1]
    at::Tensor target01;                  // the same in [0, 1]
    Discriminator d{nullptr};             // null: no feature term
    std::vector<at::Tensor> targetFeats;  // D's features of the target
    std::vector<double> featScale;        // 1 / mean squared target feature per stage
    int64_t nz = 0;

    // Per image (N): the loss of `images` (N, 3, S, S) in [-1, 1] made from `z` (N, nz).
    at::Tensor loss(const at::Tensor& images, const at::Tensor& z) {
        const at::Tensor diff = images - target;
        at::Tensor l = (o.pixel == LatentInverter::PixelLoss::L2 ? diff.pow(2) : diff.abs()).flatten(1).mean(1);
        if (o.ssimWeight > 0) l = l + o.ssimWeight * (1 - ImageSimilarity::ssim(images.add(1).div(2), target01.expand_as(images)));
        if (d && o.featureWeight > 0) {
            const std::vector<at::Tensor> feats = d->features(images);
            at::Tensor f = at::zeros_like(l);
            for (size_t s = 0; s < feats.size(); ++s) f = f + (feats[s] - targetFeats[s]).pow(2).flatten(1).mean(1) * featScale[s];
            l = l + o.featureWeight * f / static_cast<double>(feats.size());
        }
        if (o.priorWeight > 0) l = l + o.priorWeight * (z.pow(2).sum(1) / static_cast<double>(nz) - 1).pow(2);
        return l;
    }
};

// StyleGAN2-ADA projector's learning-rate factor at t in [0, 1]: cosine ramp-down over the last
// `down` of the run, linear ramp-up over the first `up`; 0 for either means no ramp.
double lrFactor(double t, double up, double down) {
    double f = down > 0 ? std::min(1.0, (1.0 - t) / down) : 1.0;
    f = 0.5 - 0.5 * std::cos(f * M_PI);
    if (up > 0) f *= std::min(1.0, t / up);
    return f;
}

double msSince(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

}  // namespace

LatentInverter::Options LatentInverter::Options::plain(int steps, uint64_t seed) {
    Options o;
    o.restarts = 1;
    o.steps = steps;
    o.candidates = 1;
    // Its own learning rate, not the default's: 0.1 gave plain optimisation more than 0.2 on the
    // bench's synthetic scenes (25.44 against 25.23 dB mean over three at 700 steps).
    o.lr = 0.1;
    o.rampUp = o.rampDown = 0;
    o.noise = 0;
    o.pixel = PixelLoss::L2;
    o.ssimWeight = o.featureWeight = o.priorWeight = 0;
    o.seed = seed;
    return o;
}

void LatentInverter::Options::validate() const {
    requireRange("restarts", restarts, 1, 64);
    requireRange("steps", steps, 1, 100000);
    requireRange("candidates", candidates, 1, 4096);
    requireRange("lr", lr, 1e-6, 10);
    requireRange("ramp-up", rampUp, 0, 1);
    requireRange("ramp-down", rampDown, 0, 1);
    requireRange("noise", noise, 0, 10);
    requireRange("noise-ramp", noiseRamp, 1e-6, 1);
    requireRange("explore", explore, 0, 1);
    requireRange("ssim-weight", ssimWeight, 0, 1000);
    requireRange("feature-weight", featureWeight, 0, 1000);
    requireRange("prior-weight", priorWeight, 0, 1000);
}

LatentInverter::LatentInverter(Generator g, Discriminator d, Options options) : g_(std::move(g)), d_(std::move(d)), options_(options) {
    options_.validate();
    g_->eval();
    if (d_) d_->eval();
}

LatentInverter::Result LatentInverter::invert(const at::Tensor& targetIn, const ProgressFn& progress, const std::atomic<bool>* cancel) const {
    const auto t0 = std::chrono::steady_clock::now();
    const Options& o = options_;
    const ModelConfig& cfg = g_->config();
    const at::Tensor target3 = targetIn.dim() == 3 ? targetIn.unsqueeze(0) : targetIn;
    if (target3.dim() != 4 || target3.size(0) != 1 || target3.size(1) != cfg.nc || target3.size(2) != cfg.imgSize || target3.size(3) != cfg.imgSize)
        throw ConfigError("the image to invert must be (" + std::to_string(cfg.nc) + ", " + std::to_string(cfg.imgSize) + ", " + std::to_string(cfg.imgSize) +
                          ") for this generator (got " + shapeText(targetIn) + ")");
    const at::Device device = g_->parameters().front().device();
    at::AutoGradMode gradMode(true);  // a caller under NoGradGuard still gets gradients for z

    LossContext ctx{o};
    ctx.nz = cfg.nz;
    ctx.target = target3.to(device, at::kFloat);
    ctx.target01 = ctx.target.add(1).div(2);
    if (d_ && o.featureWeight > 0) {
        at::NoGradGuard noGrad;
        ctx.d = d_;
        ctx.targetFeats = ctx.d->features(ctx.target);
        for (const at::Tensor& f : ctx.targetFeats) ctx.featScale.push_back(1.0 / (f.pow(2).mean().item<double>() + 1e-8));
    }
    auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
    Generator g = g_;  // a handle: forward() is not const
    auto fwd = [&](const at::Tensor& z) { return g->forward(z.view({z.size(0), cfg.nz, 1, 1})); };

    // Starts: the best of `candidates` standard-normal z for each restart, scored in chunks.
    const int64_t r = o.restarts, k = o.candidates;
    at::Tensor z;
    {
        at::NoGradGuard noGrad;
        const at::Tensor cand = at::randn({r * k, cfg.nz}, gen).to(device);
        std::vector<at::Tensor> losses;
        for (int64_t i = 0; i < r * k; i += 64) {
            if (cancel && cancel->load()) throw RenderCancelled("inversion was cancelled");
            const at::Tensor c = cand.narrow(0, i, std::min<int64_t>(64, r * k - i));
            losses.push_back(ctx.loss(fwd(c), c));
        }
        const at::Tensor best = at::cat(losses).view({r, k}).argmin(1);
        z = cand.view({r, k, cfg.nz}).gather(1, best.view({r, 1, 1}).expand({r, 1, cfg.nz})).squeeze(1).contiguous();
    }

    // Loss and figures of z (no noise, no gradient); PSNR and SSIM in float64 (ImageSimilarity:
    // float32 SSIM is good to about 1e-3).
    struct Evaluation {
        at::Tensor images, loss, psnr, ssim;  // loss, psnr, ssim: float64 (N) on the CPU
    };
    auto evaluate = [&](const at::Tensor& zs) {
        at::NoGradGuard noGrad;
        Evaluation e;
        e.images = fwd(zs);
        e.loss = ctx.loss(e.images, zs).to(at::kCPU, at::kDouble);
        const at::Tensor img01 = e.images.to(at::kDouble).add(1).div(2), tgt01 = ctx.target01.to(at::kDouble).expand_as(img01);
        e.psnr = ImageSimilarity::psnr(img01, tgt01).to(at::kCPU);
        e.ssim = ImageSimilarity::ssim(img01, tgt01).to(at::kCPU);
        return e;
    };
    Result res;
    // The restarts' figures and the choice of the best: after the exploration (or at the end).
    auto chooseRestart = [&](const Evaluation& e) {
        res.bestRestart = static_cast<int>(e.loss.argmin().item<int64_t>());
        for (int64_t i = 0; i < e.loss.size(0); ++i) {
            res.restartLoss.push_back(e.loss[i].item<double>());
            res.restartPsnr.push_back(e.psnr[i].item<double>());
        }
    };

    at::Tensor m = at::zeros_like(z), v = at::zeros_like(z);
    constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
    const int exploreEnd = r > 1 ? std::max(1, static_cast<int>(std::lround(o.explore * o.steps))) : o.steps;
    for (int step = 0; step < o.steps; ++step) {
        if (cancel && cancel->load()) throw RenderCancelled("inversion was cancelled");
        if (step == exploreEnd && z.size(0) > 1) {
            // The best restart so far goes on alone, with its Adam state.
            chooseRestart(evaluate(z));
            z = z.narrow(0, res.bestRestart, 1).clone();
            m = m.narrow(0, res.bestRestart, 1).clone();
            v = v.narrow(0, res.bestRestart, 1).clone();
        }
        const double t = (step + 0.5) / o.steps;
        const double lr = o.lr * lrFactor(t, o.rampUp, o.rampDown);
        const double noise = o.noise * std::pow(std::max(0.0, 1.0 - t / o.noiseRamp), 2.0);
        const at::Tensor zv = z.detach().requires_grad_(true);
        at::Tensor input = zv;
        if (noise > 0) input = zv + at::randn({z.size(0), cfg.nz}, gen).to(device) * noise;
        const at::Tensor images = fwd(input);
        const at::Tensor loss = ctx.loss(images, zv);
        const at::Tensor grad = torch::autograd::grad({loss.sum()}, {zv})[0];
        res.generatorSteps += z.size(0);
        // Adam with bias correction, by hand: the learning rate changes every step.
        m.mul_(kBeta1).add_(grad, 1 - kBeta1);
        v.mul_(kBeta2).addcmul_(grad, grad, 1 - kBeta2);
        const double c1 = 1 - std::pow(kBeta1, step + 1), c2 = 1 - std::pow(kBeta2, step + 1);
        z = z - lr / c1 * m / (v / c2).sqrt().add_(kEps);
        if (progress) {
            Progress p;
            p.step = step + 1;
            p.steps = o.steps;
            p.loss = loss.detach().min().item<double>();
            p.bestPsnr = ImageSimilarity::psnr(images.detach().add(1).div(2), ctx.target01.expand_as(images)).max().item<double>();
            progress(p);
        }
    }

    const Evaluation e = evaluate(z);
    int pick = 0;
    if (z.size(0) > 1) {  // every restart ran to the end
        chooseRestart(e);
        pick = res.bestRestart;
    } else if (res.restartPsnr.empty()) {  // a single restart
        chooseRestart(e);
    }
    res.z = z[pick].to(at::kCPU, at::kFloat).contiguous();
    res.reconstruction = e.images[pick].to(at::kCPU, at::kFloat).contiguous();
    res.loss = e.loss[pick].item<double>();
    res.psnr = e.psnr[pick].item<double>();
    res.ssim = e.ssim[pick].item<double>();
    res.usedDiscriminator = static_cast<bool>(ctx.d);
    res.seconds = msSince(t0);
    return res;
}

}  // namespace streetgan
