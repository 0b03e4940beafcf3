// G_ema: an exponential moving average of the generator's weights, kept beside G by TrainStep and
// used by default wherever images are drawn (sample, render, serve, the explorer, the metrics).
//
// After each G step (StyleGAN2's training loop, training/training_loop.py):
//   parameters  p_ema = lerp(p_G, p_ema, beta)  i.e. p_ema = beta p_ema + (1 - beta) p_G
//   buffers     copied (BatchNorm running statistics and counters)
// with StyleGAN2's ramp-up. StyleGAN2 sets a half-life in images, ema_nimg = ema_kimg x 1000,
// ramps it as min(ema_nimg, cur_nimg x ema_rampup) with ema_rampup 0.05 and cur_nimg the images
// done BEFORE this step, and takes beta = 0.5^(batch / ema_nimg). Our setting is a per-step decay
// (decay per step is what DCGAN users tune; it does not depend on the batch), so the cap is the
// decay itself and the ramp in steps is the same expression with cur_nimg = t x batch:
//   beta(t) = min(decay, 0.5^(1 / (0.05 t)))     t = G steps done before this one (beta(0) = 0)
// which is StyleGAN2's rule exactly for ema_kimg = batch x ln 0.5 / ln(decay) / 1000. The ramp
// makes G_ema follow G closely early on (beta 0.5 at t = 20, 0.977 at t = 600) instead of holding
// the random initial weights for thousands of steps.
// beta is computed on the host from the step count: the update never synchronises with the
// device. Every rank of a distributed run holds the same G and step count, so the same G_ema.
// Not thread-safe: the training thread drives it.
#pragma once

#include <cstdint>

#include "ml/model/Generator.h"

namespace streetgan {

class GeneratorAverage {
public:
    /// A copy of `g` (same architecture, device, weights and memory format). Built without drawing
    /// from torch's default generator: a run's random sequence is the same with or without G_ema.
    GeneratorAverage(const Generator& g, double decay);

    /// beta(t) above; 0 for t = 0.
    static double beta(double decay, int64_t stepsBefore);
    /// One update toward `g` after a G step; `stepsBefore` = the steps done before that one.
    void update(const Generator& g, int64_t stepsBefore);
    /// Sets G_ema's weights and buffers to `g`'s (a fresh start; a resumed checkpoint without G_ema).
    void copyFrom(const Generator& g);

    Generator& generator() { return ema_; }
    double decay() const { return decay_; }

private:
    double decay_;
    Generator ema_{nullptr};
};

}  // namespace streetgan
