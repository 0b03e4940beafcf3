// Projects an image into a generator's latent space (issue 44, item 1): the z whose G(z) looks
// most like a target image, with nothing but the checkpoint itself (no downloaded network).
//
// The method (choices measured by bench/bench_invert.sh; figures in docs/cli.md, "invert"):
// - Restarts: `restarts` optimisations run side by side as one batch (the generator is in eval
//   mode, so batch items do not interact and each gets its own gradient) for the first `explore`
//   of the steps; then the one with the lowest loss goes on alone, Adam state and all, to the end.
//   Each starts from the best by loss of `candidates` random z (standard normal, from `seed`).
//   Measured on held-out synthetic streets (bench/bench_invert.sh): at equal generator steps,
//   one long optimisation beat several short ones run to the end; exploring first and refining
//   the best keeps the restarts' escape from a poor start at a quarter of their cost.
//   Generator steps: restarts x explore x steps + (1 - explore) x steps.
// - Defaults, measured on three held-out synthetic scenes at 700 generator steps (mean PSNR dB /
//   SSIM): lr 0.1 -> 0.2: 25.13/0.632 -> 25.24/0.639; ssimWeight 0.5 -> 0.25: 25.24/0.639 ->
//   25.31/0.638 (0.1: 25.39/0.628; 0: the most PSNR, the least SSIM); L1 instead of L2: no gain;
//   256 candidates instead of 64: none; priorWeight 0: +0.08 dB, but |z|^2 / nz of the first
//   scene went from 1.15 to 1.33, 2.3 standard deviations off the shell (sqrt(2 / nz) = 0.14)
//   where G was trained and from which the explorer walks. Plain z optimisation: 25.44/0.589.
//   featureWeight on a 300-step tiny-32 with its D (six scenes): 0: 23.58/0.617, 0.05: 23.68/0.613,
//   0.5: 23.88/0.591 (bench/results/invert-20261130-024610.md).
// - Loss per image: pixel distance (mean squared error on [-1, 1], or mean absolute error)
//   + ssimWeight * (1 - SSIM) on [0, 1] (ImageSimilarity)
//   + featureWeight * the discriminator's own feature distance where the checkpoint has a D
//     (AnoGAN's idea, in place of StyleGAN2-ADA's downloaded VGG16): for each LeakyReLU stage of
//     D (DiscriminatorImpl::features), the mean squared feature difference over the target's mean
//     squared feature, averaged over the stages (so no stage dominates by its scale)
//   + priorWeight * (|z|^2 / nz - 1)^2: keeps z on the shell where a standard normal z of nz
//     dimensions lies (|z|^2 ~ nz), where G was trained; a Gaussian log-prior would pull z to 0,
//     the mode, whose images are the bland average of the data.
// - Adam (betas 0.9, 0.999) on z with StyleGAN2-ADA projector's schedule: learning rate ramped
//   up over the first rampUp of the steps, down with a cosine over the last rampDown, and noise
//   added to z in the forward pass, noise * max(0, 1 - t / noiseRamp)^2 (t = step / steps).
// - The result is the final z of the restart kept (explore = 1: of the one whose final z, without
//   noise, has the lowest loss).
// Options::plain() is the baseline the bench compares with: z-only pixel optimisation (one
// random start, mean squared error alone, constant learning rate, no noise, no prior).
//
// Deterministic per seed on one device and thread count: the random draws come from a CPU
// generator seeded with `seed`; the global RNG is not touched.
//
// Thread contract: invert() runs on the calling thread (never the GUI's: it takes seconds) and
// uses the modules given to the constructor, which no other thread may run meanwhile. `cancel` is
// polled before every step (RenderCancelled); `progress` is called on the calling thread after
// every step.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include <ATen/core/Tensor.h>

#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"

namespace streetgan {

class LatentInverter {
public:
    enum class PixelLoss { L2, L1 };

    struct Options {
        int restarts = 4;       ///< optimisations side by side, 1..64
        int steps = 400;        ///< Adam steps of the z kept, 1..100000
        double explore = 0.25;  ///< fraction of the steps all restarts run; 1: all run to the end
        int candidates = 64;    ///< random z tried for each restart's start, 1..4096
        double lr = 0.2;
        double rampUp = 0.05, rampDown = 0.25;  ///< fractions of the steps (StyleGAN2-ADA's)
        double noise = 0.05, noiseRamp = 0.75;
        PixelLoss pixel = PixelLoss::L2;
        double ssimWeight = 0.25;
        double featureWeight = 0.05;  ///< 0 or no D: no feature term
        double priorWeight = 0.01;
        uint64_t seed = 0;
        /// The baseline: plain z optimisation of the pixel distance (see above).
        static Options plain(int steps, uint64_t seed);
        /// ConfigError naming the first option out of its range.
        void validate() const;
    };

    struct Progress {
        int step = 0, steps = 0;  ///< steps done, of `steps`
        double loss = 0;          ///< lowest loss among the restarts at this step
        double bestPsnr = 0;      ///< highest PSNR (dB) among the restarts at this step
    };
    using ProgressFn = std::function<void(const Progress&)>;

    struct Result {
        at::Tensor z;               ///< float32 (nz) on the CPU
        at::Tensor reconstruction;  ///< G(z): float32 (3, S, S) in [-1, 1] on the CPU
        double psnr = 0, ssim = 0;  ///< of the reconstruction against the target ([0, 1] images)
        double loss = 0;
        double seconds = 0;               ///< wall time of invert()
        int bestRestart = 0;              ///< which restart was kept
        int64_t generatorSteps = 0;       ///< forward + backward passes of one image, all restarts
        std::vector<double> restartPsnr;  ///< each restart's final PSNR
        std::vector<double> restartLoss;  ///< each restart's final loss
        bool usedDiscriminator = false;   ///< whether the feature term took part
    };

    /// `d` may be null (a G-only checkpoint): no feature term. Both are put in eval mode.
    LatentInverter(Generator g, Discriminator d, Options options);

    /// `target`: float (3, S, S) or (1, 3, S, S) in [-1, 1], S the generator's side
    /// (InversionTarget makes one). Throws ConfigError for another shape, RenderCancelled.
    Result invert(const at::Tensor& target, const ProgressFn& progress = {}, const std::atomic<bool>* cancel = nullptr) const;

    const Options& options() const { return options_; }

private:
    Generator g_;
    Discriminator d_;
    Options options_;
};

}  // namespace streetgan
