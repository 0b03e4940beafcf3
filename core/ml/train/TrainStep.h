// The reference DCGAN update on one batch, with everything it owns: G, D, both AdamW optimisers,
// the loss scaler and the on-device metric accumulators.
//
// One step: D on real (target real_label) then on fake.detach() (target fake_label), D steps;
// G against target 1 through D, G steps. D(x), D(G(z)) before (d_g_z1) and after (d_g_z2) the D
// step are accumulated ON THE DEVICE: the step never synchronises with the host; drain() reads
// the sums once per log interval. Not thread-safe: one thread drives a TrainStep.
// Options (TrainConfig): DiffAugment on every image D sees (real and fake, both steps); the R1
// penalty on reals every r1_every-th step, a backward of its own before D steps; G_ema updated
// after every G step (GeneratorAverage). None of them synchronises with the host.
// --cuda-graph: after kGraphWarmupSteps eager steps the update is captured as a CUDA graph
// (StepGraph) and replayed; each batch is copied into the graph's fixed input tensors first. G_ema
// stays outside the graph (its decay changes every step during the ramp).
// Distributed (setDistributed): G's and D's gradients are averaged over the ranks during the
// last backward pass of each update (dist/GradientSync), so every rank steps identically.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include <torch/optim/adamw.h>

#include "base/run/Events.h"
#include "base/run/TrainConfig.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/dataset/Batch.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"
#include "ml/train/BatchUpload.h"
#include "ml/train/DeviceBatch.h"
#include "ml/train/DiffAugment.h"
#include "ml/train/FusedAdamW.h"
#include "ml/train/GeneratorAverage.h"
#include "ml/train/GradScaler.h"
#include "ml/train/StepGraph.h"

namespace streetgan {

class DistributedContext;
class GradientSync;

struct StepMetrics {
    int64_t steps = 0;   ///< steps averaged over
    MetricsEvent means;  ///< the StepMean training scalars (base/run/TrainingScalar.h); the others NaN
};

class TrainStep {
public:
    /// Builds G and D for cfg.model on `device`, initialised from torch's default generator
    /// (seeded by the caller). Throws ConfigError for AMP modes the device cannot run.
    TrainStep(const TrainConfig& cfg, torch::Device device);
    ~TrainStep();

    /// Joins a distributed run: copies rank 0's parameters and buffers to every rank and averages
    /// gradients from then on. `dist` must outlive this TrainStep. Call after restore() on resume.
    void setDistributed(DistributedContext& dist);
    /// Rank 0's parameters and buffers (BatchNorm running statistics included) to every rank.
    void broadcastState();

    /// One update. `instanceStd` scales batch.instanceReal/instanceFake when they are defined.
    void step(const Batch& batch, double instanceStd = 0.0);
    /// Averages since the last drain (one host synchronisation), then resets the accumulators.
    StepMetrics drain();
    /// Output for `z` of G_ema when there is one, else of G, in eval mode (BatchNorm running
    /// statistics), on the CPU: what the run's sample grids show.
    torch::Tensor sample(const torch::Tensor& z);

    void setLearningRate(double lr);
    double learningRate() const;
    /// Fills the model/optimizer/scaler fields of `out`.
    void capture(CheckpointData& out);
    /// Loads G, D, G_ema (a copy of G when the checkpoint has none) and optimizer/scaler state when
    /// present, and the step count; throws CheckpointError (also for a slim, G-only checkpoint:
    /// there is no D to train on).
    void restore(const CheckpointData& in, const std::string& path);

    Generator& generator() { return g_; }
    Discriminator& discriminator() { return d_; }
    /// G_ema, or nullptr with --ema 0.
    Generator* averageGenerator() { return ema_ ? &ema_->generator() : nullptr; }
    /// The generator images are drawn from: G_ema when there is one, else G.
    Generator& drawingGenerator() { return ema_ ? ema_->generator() : g_; }
    /// Updates done (restored from a checkpoint's step): drives the EMA ramp and DiffAugment's seeds.
    int64_t steps() const { return steps_; }
    torch::Device device() const { return device_; }

    /// Eager steps before the capture (cuDNN's benchmark and the lazily made state run in these).
    static constexpr int64_t kGraphWarmupSteps = 3;

private:
    /// The update on one batch without G_ema and the step counters: what a CUDA graph captures.
    void update(const DeviceBatch& in);
    /// update() through the graph: warm-up, (re)capture where needed, copy of `in`, replay.
    void updateGraphed(const DeviceBatch& in);
    /// Adds a step's StepMean scalars (by key; each must be defined) to the accumulator.
    void accumulate(const std::array<torch::Tensor, TrainingScalar::kCount>& values);

    TrainConfig cfg_;
    torch::Device device_;
    Generator g_;
    Discriminator d_;
    std::unique_ptr<torch::optim::AdamW> optG_, optD_;
    std::unique_ptr<GradScaler> scaler_;
    std::unique_ptr<FusedAdamW> fusedG_, fusedD_;  // set where ATen's fused AdamW exists (2.x, CUDA)
    DistributedContext* dist_ = nullptr;
    std::unique_ptr<GradientSync> syncG_, syncD_;  // declared after g_/d_: destroyed before them
    std::optional<GeneratorAverage> ema_;          // --ema > 0
    DiffAugment augment_;
    BatchUpload upload_;  // each batch to the device on a stream of its own (CUDA)
    int64_t steps_ = 0;
    torch::Tensor realTarget_, fakeTarget_, genTarget_;
    torch::Tensor acc_;  // (5) running sums on the device: loss_d, loss_g, d_x, d_g_z1, d_g_z2
    int64_t accSteps_ = 0;
    bool autocast_ = false;
    c10::ScalarType autocastDtype_ = c10::kBFloat16;
    std::unique_ptr<StepGraph> graph_;  // --cuda-graph
    DeviceBatch graphIn_;               // the captured kernels' inputs: each batch is copied here
    int64_t graphWarmup_ = 0;           // eager steps done since the graph was (re)made
    double graphLr_ = -1;               // the learning rate the capture holds
};

}  // namespace streetgan
