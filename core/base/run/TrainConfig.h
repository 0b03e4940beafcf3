// Everything a training run is configured by. Serialised as run.json's "config" object and inside
// every checkpoint; read back from --config FILE (any subset of keys) and overridden by flags. Each
// setting's key, flag, range, help and resume rule are its row in TrainOption's table.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/model/ModelConfig.h"
#include "base/run/BestMetric.h"
#include "base/run/QualityMetric.h"

namespace streetgan {

struct TrainConfig {
    ModelConfig model;                ///< architecture (from a preset unless overridden)
    std::string data = "synthetic";   ///< data source spec: synthetic | folder | archive | cache
    int64_t syntheticImages = 16384;  ///< images per epoch of the synthetic street set
    std::string dataPath = "auto";    ///< photos: auto | photos | packed (DataPathChoice)
    // Reference augmentation of real photos (folders): shift, centre crop, resize, noise.
    double maxShift = 0.2;    ///< largest horizontal shift, fraction of the width
    double cropFactor = 4.0;  ///< centre crop side = crop_factor x img_size source pixels
    double augNoise = 0.05;   ///< Gaussian noise std in [0, 1] pixel units
    bool flip = false;        ///< random horizontal mirror
    // Selection of real photos.
    std::vector<std::string> cities;         ///< keep only these cities (empty: all)
    std::vector<std::string> excludeCities;  ///< drop these cities
    int64_t maxPerSequence = 0;              ///< cap of training images per sequence (0: none)
    double validationPercent = 0.0;          ///< held out by key hash, never trained on
    std::string s3Endpoint;                  ///< s3:// data (s3::S3LoadOptions): an S3-compatible store's URL; "": AWS
    int s3Concurrency = 48;                  ///< s3:// data: GETs in flight
    std::string s3Cache;                     ///< s3:// data: local cache of objects and listings ("": $XDG_CACHE_HOME/streetgan/s3)
    double s3CacheGb = 20;                   ///< s3:// data: object cache limit, least recently used out first (0: off)
    double s3ListingMaxAge = 24;             ///< s3:// data: hours a cached listing is used before listing again (0: always)
    uint64_t seed = 0;                       ///< seeds weights, data order, noise: runs are reproducible on CPU
    std::string device = "auto";             ///< auto | cpu | cuda | cuda:N
    int64_t batch = 128;
    int64_t steps = 0;   ///< total optimiser steps of the run; 0: use epochs
    int64_t epochs = 5;  ///< total epochs when steps == 0
    double lr = 2e-4;
    double lrD = 0;  ///< D's own learning rate, two time-scale updates (TTUR; 0: D trains at lr)
    std::array<double, 2> betas = {0.5, 0.999};
    double weightDecay = 0.05;
    double eps = 1e-8;
    double realLabel = 1.0;  ///< target for real images (0.9: one-sided label smoothing)
    double fakeLabel = 0.0;
    double instanceNoise = 0.0;      ///< std of Gaussian noise added to D's inputs (real and fake)
    int64_t instanceNoiseSteps = 0;  ///< linear decay of instanceNoise to 0 over this many steps (0: constant)
    std::string amp = "off";         ///< off | bf16 | fp16 (fp16: CUDA only, dynamic loss scaling)
    // Averaged generator, data-efficient augmentation and R1 (TrainStep; docs/cli.md).
    /// G_ema, the exponential moving average of G's weights, has two rules for its decay (emaDecay):
    /// the per-step decay `ema`, or the half-life in images `emaKimg` (StyleGAN's ema_kimg). Both
    /// ramp up as StyleGAN2 does (GeneratorAverage). ema 0 turns G_ema off under either rule.
    /// Per-step decay of G_ema, used when emaKimg is 0 (0: no G_ema). 0.999: a half-life of ~700
    /// steps (90k images at batch 128).
    double ema = 0.999;
    /// G_ema's half-life in thousands of training images (> 0: this rule, `ema` then only says on;
    /// 0: the per-step `ema`). A run.json, --config file or command line that sets `ema` and not
    /// `ema_kimg` means the per-step rule (merge): run.json files written before this setting
    /// existed resume with their per-step decay, and `--ema D` alone works as it always did.
    double emaKimg = 0;
    std::string diffAugment;         ///< DiffAugment policy: comma-separated subset of color, translation, cutout ("": off)
    double r1Gamma = 0.0;            ///< R1 penalty weight gamma on D's logits at real images (0: off)
    int64_t r1Every = 16;            ///< lazy regularisation: R1 every N-th D step, scaled by N
    int64_t logEvery = 10;           ///< steps between metric events (and the only host syncs)
    int64_t sampleEvery = 200;       ///< steps between fixed-noise sample grids (0: only at the end)
    int64_t checkpointEvery = 1000;  ///< steps between checkpoints (0: only at epoch ends and the end)
    /// Mid-epoch checkpoints kept, the newest (0: all). Each is a full checkpoint (a msls-128 one is
    /// tens of MB): 5 bound the disk while leaving a few recent steps to go back to; the epochs'
    /// own files and best.pt are never pruned, nor one whose quality figure is still being computed.
    int64_t keepCheckpoints = 5;
    /// s3://bucket/prefix each checkpoint is uploaded to, with the run's files (ml/train/CheckpointSync;
    /// "": none); a `train --resume` with it in a folder without checkpoints continues from there.
    std::string checkpointSync;
    /// MiB: a synced checkpoint larger than this goes up in a multipart upload of parts of this size
    /// (s3::S3Client::putFile); 5 (S3's smallest part) to 5120 (its largest).
    int64_t checkpointSyncPartSize = 64;
    /// auto: watch EC2's spot interruption notice when on EC2 (checkpoint and stop, as on SIGTERM) | off
    std::string spotNotice = "auto";
    int loaderThreads = 2;     ///< data loader worker threads
    int prefetch = 4;          ///< ready batches queued ahead of the trainer
    int threads = 0;           ///< torch intra-op threads (0: LibTorch's default)
    bool channelsLast = true;  ///< NHWC memory format (oneDNN kernels: +6-12% for naive-64 on CPU, tensor cores on GPU)
    bool cudaGraph = false;    ///< CUDA: the step captured once as a CUDA graph and replayed (TrainStep, StepGraph)
    /// CUDA: BatchNorm fused with its ReLU/LeakyReLU in training (ml/model/FusedBnAct); off by
    /// default until the GPU check has proven it (issue 46); ignored where the build has no kernels
    bool fusedBnAct = false;
    int64_t fixedNoiseCount = 64;  ///< fixed progress-noise vectors (stored in every checkpoint)
    // Metrics at checkpoints (eval/TrainingMetrics): FID, KID, precision/recall, sliced Wasserstein.
    // On by default at every checkpoint, in the background: SWD needs no feature model, so every
    // run gets a quality curve out of the box (its cost: metricSwdSamples). fid, kid and pr stay in the default list although a
    // fresh install has no feature model: they are then logged as null with the reason ("pass
    // --metric-features ..."), which tells a user how to get them, and start working as soon as
    // metric_features is set, without also having to name them.
    static constexpr int64_t kDefaultSwdSamples = 512;  ///< see metricSwdSamples
    int64_t metricEveryCheckpoints = 1;                 ///< evaluate every N-th checkpoint written (0: off)
    std::string metricFeatures;                         ///< TorchScript feature model, e.g. inception-2015-12-05.pt (empty: fid/kid/pr unavailable)
    int64_t metricSamples = 2000;                       ///< fid/kid/pr: generated images per evaluation (and real images, capped at the data set)
    std::vector<std::string> metrics = {QualityMetric::kFid, QualityMetric::kKid, QualityMetric::kPr, QualityMetric::kSwd};  ///< a subset of QualityMetric's
    std::string metricCacheDir;  ///< real-feature and SWD descriptor cache folder (empty: $STREETGAN_FID_CACHE or ~/.cache/streetgan/fid)
    /// swd: generated and real images per evaluation (capped at the data set). 512 images give
    /// 65,536 descriptors per level (the paper: 16,384 images); each set then holds 113 MB at
    /// 64 px. Measured on one thread (OMP_NUM_THREADS=1, 2-core machine): `eval --metric swd` of
    /// resources/demo/naive-64-synthetic.pt 12 s (13 s with the real side not yet cached), 0.7 GB
    /// peak RSS, well within the 1000 CPU steps between default checkpoints; a 4-step tiny-32
    /// run, which waits for its last checkpoint's figure, takes 8 s instead of 2.8 s.
    int64_t metricSwdSamples = kDefaultSwdSamples;
    /// The figure that picks checkpoints/best.pt (BestMetric: swd, fid, kid, precision, recall or
    /// none). swd by default: the one figure every run computes without a feature model. With
    /// metric_every_checkpoints 0 nothing is evaluated and no best is kept, whatever this says; nor
    /// with the default when `metrics` leave swd out (BestMetric::check).
    std::string bestMetric = BestMetric::kDefault;

    /// The learning rates any way of setting one accepts (--lr, run.json, `control set-lr`, the New
    /// run and Set learning rate dialogs): one range, here.
    static constexpr double kLrMin = 1e-8, kLrMax = 10;

    /// One line of the settings a reader of a log wants first, e.g. "tiny-32, batch 8, lr 0.0002,
    /// amp off, instance noise 0, G_ema 0.999 per step, DiffAugment off, R1 off" (the trainer prints
    /// it at the start of a run); G_ema under the images rule reads "G_ema 10 kimg (0.995574 per
    /// step)", the decay of a step of batch x `worldSize` images.
    std::string summary(int worldSize = 1) const;
    /// The per-step decay G_ema averages with, for steps of `imagesPerStep` training images (batch
    /// x world size): 0 (no G_ema) when ema is 0; 0.5^(imagesPerStep / (1000 x emaKimg)) when
    /// emaKimg > 0, StyleGAN's beta for a half-life of emaKimg thousand images; else ema.
    double emaDecay(int64_t imagesPerStep) const;
    /// The parts of a DiffAugment policy ("color,cutout" -> {color, cutout}; "" -> none), in order.
    static std::vector<std::string> diffAugmentOps(const std::string& policy);
    /// Throws ConfigError naming the first invalid value and its allowed range.
    void validate() const;
    nlohmann::json toJson() const;
    /// Applies the keys present in `j` over the current values (unknown keys are errors).
    void merge(const nlohmann::json& j);
    /// The settings (JSON keys) that differ between `before` (a run's run.json config) and
    /// `after`: {"lr": {"from": 0.0002, "to": 0.001}, ...}. Keys of `after` only.
    static nlohmann::json changes(const nlohmann::json& before, const nlohmann::json& after);
    /// Why a resumed run may not change `key`, or "" when it may (TrainOption's keptOnResume): the
    /// model's shape (preset, nz, ngf, ndf, nc, img_size), the seed and the fixed noise continue
    /// from the checkpoint, so a new value would be written to run.json and not be what trains.
    /// Every other setting takes effect from the resume on (the optimisers' moments from the
    /// checkpoint, their rate, betas, weight decay and epsilon from these settings).
    static std::string resumeRefusal(const std::string& key);
    /// Throws ConfigError naming the first setting a resume of the run with config `before` (read
    /// from `where`) may not change to this config's value.
    void checkResume(const nlohmann::json& before, const std::string& where) const;
    /// Total steps implied by steps/epochs for a data set of `images` images.
    int64_t totalSteps(int64_t stepsPerEpoch) const { return steps > 0 ? steps : epochs * stepsPerEpoch; }
};

}  // namespace streetgan
