// G_ema: an exponential moving average of the generator's weights, kept beside G by TrainStep and
// used by default wherever images are drawn (sample, render, serve, the explorer, the metrics).
//
// After each G step (StyleGAN2's training loop, training/training_loop.py):
//   parameters  p_ema = lerp(p_G, p_ema, beta)  i.e. p_ema = beta p_ema + (1 - beta) p_G
//   buffers     copied (BatchNorm running statistics and counters)
// with StyleGAN2's ramp-up. StyleGAN2 sets a half-life in images, ema_nimg = ema_kimg x 1000,
// ramps it as min(ema_nimg, cur_nimg x ema_rampup) with ema_rampup 0.05 and cur_nimg the images
// done BEFORE this step, and takes beta = 0.5^(B / ema_nimg), B the images of one step (batch x
// world size). Written per step, with cur_nimg = t x B:
//   beta(t) = min(decay, 0.5^(1 / (0.05 t)))     t = G steps done before this one (beta(0) = 0)
// where decay = 0.5^(B / (1000 ema_kimg)): the ramp does not depend on B, the cap does. So one
// formula serves both of TrainConfig's rules (TrainConfig::emaDecay says which applies): the
// half-life in images (ema_kimg, StyleGAN's rule exactly) and the per-step decay (ema, the rule of
// runs before ema_kimg existed; StyleGAN2's for ema_kimg = B x ln 0.5 / ln(decay) / 1000). The
// ramp makes G_ema follow G closely early on (beta 0.5 at t = 20, 0.977 at t = 600) instead of
// holding the random initial weights for thousands of steps.
// beta is computed on the host from the step count: the update never synchronises with the
// device. Every rank of a distributed run holds the same G and step count, so the same G_ema.
// Not thread-safe: the training thread drives it.
#pragma once

#include <cstdint>

#include "ml/model/Generator.h"

namespace streetgan {

class GeneratorAverage {
public:
    /// A copy of `g` (same architecture, device, weights and memory format), averaged with the
    /// per-step `decay` (TrainConfig::emaDecay). Built without drawing from torch's default
    /// generator: a run's random sequence is the same with or without G_ema.
    GeneratorAverage(const Generator& g, double decay);

    /// beta(t) above; 0 for t = 0.
    static double beta(double decay, int64_t stepsBefore);
    /// One update toward `g` after a G step; `stepsBefore` = the steps done before that one.
    void update(const Generator& g, int64_t stepsBefore);
    /// Sets G_ema's weights and buffers to `g`'s (a fresh start; a resumed checkpoint without G_ema).
    void copyFrom(const Generator& g);

    Generator& generator() { return ema_; }
    double decay() const { return decay_; }
    /// A new per-step decay from the next update on (a distributed run: its steps train on batch x
    /// world size images, known once the ranks have met).
    void setDecay(double decay) { decay_ = decay; }

private:
    double decay_;
    Generator ema_{nullptr};
};

}  // namespace streetgan
