#include "base/run/TrainOption.h"

#include <sstream>

#include "base/run/BestMetric.h"
#include "base/run/QualityMetric.h"
#include "base/run/TrainConfig.h"

namespace streetgan {

namespace {

// A row's member: `+` makes the captureless lambda the plain function pointer its Ref type is.
#define STREETGAN_OPTION_MEMBER(expr) (+[](TrainConfig & c) -> auto& { return c.expr; })

constexpr double kByModel = 1, kByModelHi = 0;  // lo > hi: no range of its own (ModelConfig::validate checks the sizes)
constexpr const char* kAny = "";

}  // namespace

const std::vector<TrainOption::Spec>& TrainOption::all() {
    static const std::vector<Spec> options = {
        // the model's shape (a preset, or its sizes): what a checkpoint holds
        {"preset", "--preset", STREETGAN_OPTION_MEMBER(model.preset), 0, 0, kAny, "Model preset: tiny-32, naive-64, safe-64, safe-128, msls-128",
         "the checkpoint holds the model of its preset"},
        {"nz", "", STREETGAN_OPTION_MEMBER(model.nz), kByModel, kByModelHi, kAny, "Latent vector length",
         "the checkpoint holds a generator of this latent size"},
        {"ngf", "", STREETGAN_OPTION_MEMBER(model.ngf), kByModel, kByModelHi, kAny, "Generator width", "the checkpoint holds a generator of this width"},
        {"ndf", "", STREETGAN_OPTION_MEMBER(model.ndf), kByModel, kByModelHi, kAny, "Discriminator width",
         "the checkpoint holds a discriminator of this width"},
        {"nc", "", STREETGAN_OPTION_MEMBER(model.nc), kByModel, kByModelHi, kAny, "Image channels", "the checkpoint's models have this many channels"},
        {"img_size", "", STREETGAN_OPTION_MEMBER(model.imgSize), kByModel, kByModelHi, kAny, "Image size in pixels",
         "the checkpoint's models make and judge images of this size"},
        // data
        {"data", "--data", STREETGAN_OPTION_MEMBER(data), 0, 0, kAny, "Data source: synthetic (default) or a folder of photos (MSLS layout recognised)",
         nullptr},
        {"data_path", "--data-path", STREETGAN_OPTION_MEMBER(dataPath), 0, 0, "auto,photos,packed",
         "Photos: auto (a packed cache of the same photos and settings when there is one; on a GPU, packed first), photos (decode each image), "
         "packed (pack first if none)",
         nullptr},
        {"synthetic_images", "--synthetic-images", STREETGAN_OPTION_MEMBER(syntheticImages), 1, 1e10, kAny, "Images per epoch of the synthetic set", nullptr},
        {"max_shift", "--max-shift", STREETGAN_OPTION_MEMBER(maxShift), 0, 1, kAny, "Largest horizontal shift, fraction of the width", nullptr},
        {"crop_factor", "--crop-factor", STREETGAN_OPTION_MEMBER(cropFactor), 0.01, 64, kAny, "Centre crop side in source pixels = factor x image size",
         nullptr},
        {"aug_noise", "--aug-noise", STREETGAN_OPTION_MEMBER(augNoise), 0, 10, kAny, "Gaussian noise std added to real images ([0,1] units)", nullptr},
        {"flip", "--flip", STREETGAN_OPTION_MEMBER(flip), 0, 0, kAny, "Random horizontal mirror of real images", nullptr},
        {"cities", "--cities", STREETGAN_OPTION_MEMBER(cities), 0, 0, kAny, "Keep only these cities (MSLS)", nullptr},
        {"exclude_cities", "--exclude-cities", STREETGAN_OPTION_MEMBER(excludeCities), 0, 0, kAny, "Drop these cities (MSLS)", nullptr},
        {"max_per_sequence", "--max-per-sequence", STREETGAN_OPTION_MEMBER(maxPerSequence), 0, 1e12, kAny, "Cap of training images per sequence (0: none)",
         nullptr},
        {"validation_percent", "--validation-percent", STREETGAN_OPTION_MEMBER(validationPercent), 0, 99, kAny,
         "Hold out this share by key hash (never trained on)", nullptr},
        {"s3_endpoint", "--s3-endpoint", STREETGAN_OPTION_MEMBER(s3Endpoint), 0, 0, kAny,
         "s3:// data: an S3-compatible store's URL, addressed path-style (MinIO, SeaweedFS, Ceph; default AWS)", nullptr},
        {"s3_concurrency", "--s3-concurrency", STREETGAN_OPTION_MEMBER(s3Concurrency), 1, 1024, kAny,
         "s3:// data: GETs in flight (32-64 fill a 1-10 Gbit/s link at 20-100 ms round trips)", nullptr},
        {"s3_cache", "--s3-cache", STREETGAN_OPTION_MEMBER(s3Cache), 0, 0, kAny,
         "s3:// data: local folder caching fetched objects and listings (default $XDG_CACHE_HOME/streetgan/s3)", nullptr},
        {"s3_cache_gb", "--s3-cache-gb", STREETGAN_OPTION_MEMBER(s3CacheGb), 0, 1e6, kAny,
         "s3:// data: size limit of the object cache in GB, least recently used out first (0: no object cache)", nullptr},
        {"s3_listing_max_age", "--s3-listing-max-age", STREETGAN_OPTION_MEMBER(s3ListingMaxAge), 0, 1e6, kAny,
         "s3:// data: hours a cached listing is used before the prefix is listed again (0: list every time)", nullptr},
        {"seed", "--seed", STREETGAN_OPTION_MEMBER(seed), kByModel, kByModelHi, kAny, "Seed of weights, data order and noise",
         "the random stream continues from the checkpoint's state"},
        {"device", "--device", STREETGAN_OPTION_MEMBER(device), 0, 0, kAny, "auto | cpu | cuda | cuda:N", nullptr},
        // length and optimisation
        {"batch", "--batch", STREETGAN_OPTION_MEMBER(batch), 1, 65536, kAny, "Batch size", nullptr},
        {"steps", "--steps", STREETGAN_OPTION_MEMBER(steps), 0, 1e12, kAny, "Total optimiser steps of the run", nullptr},
        {"epochs", "--epochs", STREETGAN_OPTION_MEMBER(epochs), 0, 1e9, kAny, "Total epochs of the run", nullptr},
        {"lr", "--lr", STREETGAN_OPTION_MEMBER(lr), TrainConfig::kLrMin, TrainConfig::kLrMax, kAny,
         "Learning rate of G's AdamW optimiser, and of D's unless --lr-d", nullptr},
        {"lr_d", "--lr-d", STREETGAN_OPTION_MEMBER(lrD), 0, TrainConfig::kLrMax, kAny,
         "D's own learning rate, two time-scale updates (TTUR, e.g. --lr 1e-4 --lr-d 4e-4; 0: D's is --lr)", nullptr},
        {"betas", "--betas", STREETGAN_OPTION_MEMBER(betas), 0, 0.999999, kAny, "AdamW betas of both optimisers, e.g. 0.5,0.999", nullptr},
        {"weight_decay", "--weight-decay", STREETGAN_OPTION_MEMBER(weightDecay), 0, 10, kAny, "AdamW weight decay", nullptr},
        {"eps", "--eps", STREETGAN_OPTION_MEMBER(eps), 0, 1, kAny, "AdamW epsilon", nullptr},
        {"real_label", "--real-label", STREETGAN_OPTION_MEMBER(realLabel), 0, 1, kAny, "Target for real images (0.9: one-sided label smoothing)", nullptr},
        {"fake_label", "--fake-label", STREETGAN_OPTION_MEMBER(fakeLabel), 0, 1, kAny, "Target for fake images", nullptr},
        {"instance_noise", "--instance-noise", STREETGAN_OPTION_MEMBER(instanceNoise), 0, 10, kAny, "Std of instance noise on D's inputs", nullptr},
        {"instance_noise_steps", "--instance-noise-steps", STREETGAN_OPTION_MEMBER(instanceNoiseSteps), 0, 1e12, kAny,
         "Decay instance noise to 0 over N steps (0: constant)", nullptr},
        {"amp", "--amp", STREETGAN_OPTION_MEMBER(amp), 0, 0, "off,bf16,fp16", "Mixed precision: off | bf16 | fp16 (CUDA)", nullptr},
        // 1 would freeze G_ema at G's initial weights
        {"ema", "--ema", STREETGAN_OPTION_MEMBER(ema), 0, 0.999999, kAny,
         "Per-step decay of the averaged generator G_ema, used when --ema-kimg is 0 (0: no G_ema under either rule; ramped up as StyleGAN2); "
         "--ema alone sets --ema-kimg 0",
         nullptr},
        // A million kimg (a billion images) is as good as a frozen G_ema at any batch: the ceiling.
        {"ema_kimg", "--ema-kimg", STREETGAN_OPTION_MEMBER(emaKimg), 0, 1e6, kAny,
         "G_ema's half-life in thousands of images, StyleGAN's ema_kimg: decay per step 0.5^(batch x ranks / (1000 K)), ramped up as StyleGAN2 "
         "(0: the per-step --ema)",
         nullptr},
        {"diffaugment", "--diffaugment", STREETGAN_OPTION_MEMBER(diffAugment), 0, 0, kAny,
         "DiffAugment policy for D's inputs: a subset of color,translation,cutout (\"\": off)", nullptr},
        {"r1_gamma", "--r1", STREETGAN_OPTION_MEMBER(r1Gamma), 0, 1e6, kAny, "R1 gradient penalty gamma on real images (0: off)", nullptr},
        {"r1_every", "--r1-every", STREETGAN_OPTION_MEMBER(r1Every), 1, 1e6, kAny, "Apply R1 every N D steps, scaled by N (lazy regularisation)", nullptr},
        // logging, checkpoints, speed
        {"log_every", "--log-every", STREETGAN_OPTION_MEMBER(logEvery), 1, 1e9, kAny, "Steps between metric events", nullptr},
        {"sample_every", "--sample-every", STREETGAN_OPTION_MEMBER(sampleEvery), 0, 1e12, kAny, "Steps between sample grids (0: end only)", nullptr},
        {"checkpoint_every", "--checkpoint-every", STREETGAN_OPTION_MEMBER(checkpointEvery), 0, 1e12, kAny,
         "Steps between checkpoints (0: epoch ends and end only)", nullptr},
        {"keep_checkpoints", "--keep-checkpoints", STREETGAN_OPTION_MEMBER(keepCheckpoints), 0, 1e9, kAny,
         "Mid-epoch checkpoints kept, the newest (0: all); epoch ends and best.pt are always kept", nullptr},
        {"checkpoint_sync", "--checkpoint-sync", STREETGAN_OPTION_MEMBER(checkpointSync), 0, 0, kAny,
         "s3://bucket/prefix: upload each checkpoint and the run's files there (with --resume in a folder without checkpoints: continue "
         "from there)",
         nullptr},
        // S3's own bounds on a part: 5 MiB (all but the last) to 5 GiB.
        {"checkpoint_sync_part_size", "--checkpoint-sync-part-size", STREETGAN_OPTION_MEMBER(checkpointSyncPartSize), 5, 5120, kAny,
         "MiB: a synced checkpoint larger than this goes up in parts of this size, within S3's smallest and largest part (smaller parts "
         "retry cheaper on a flaky link)",
         nullptr},
        {"spot_notice", "--spot-notice", STREETGAN_OPTION_MEMBER(spotNotice), 0, 0, "auto,off",
         "auto: on EC2, checkpoint and stop at the spot interruption notice (as on SIGTERM) | off", nullptr},
        {"loader_threads", "--loader-threads", STREETGAN_OPTION_MEMBER(loaderThreads), 1, 256, kAny, "Data loader threads", nullptr},
        {"prefetch", "--prefetch", STREETGAN_OPTION_MEMBER(prefetch), 1, 1024, kAny, "Ready batches queued ahead of the trainer", nullptr},
        {"threads", "--threads", STREETGAN_OPTION_MEMBER(threads), 0, 1024, kAny, "Torch intra-op threads (0: default)", nullptr},
        {"channels_last", "--channels-last,!--no-channels-last", STREETGAN_OPTION_MEMBER(channelsLast), 0, 0, kAny, "NHWC memory format (default on)", nullptr},
        {"cuda_graph", "--cuda-graph,!--no-cuda-graph", STREETGAN_OPTION_MEMBER(cudaGraph), 0, 0, kAny,
         "CUDA: capture the step once as a CUDA graph and replay it (not with DiffAugment, R1 or launch)", nullptr},
        {"fused_bn_act", "--fused-bn-act,!--no-fused-bn-act", STREETGAN_OPTION_MEMBER(fusedBnAct), 0, 0, kAny,
         "CUDA: each BatchNorm and its activation as one kernel forward and two backward (where the trainer was built with its kernels)", nullptr},
        {"fixed_noise", "", STREETGAN_OPTION_MEMBER(fixedNoiseCount), 1, 1024, kAny, "Fixed progress-noise vectors of the sample grids",
         "the sample grids keep the checkpoint's fixed noise"},
        // metrics at checkpoints
        {"metric_every_checkpoints", "--metric-every-checkpoints", STREETGAN_OPTION_MEMBER(metricEveryCheckpoints), 0, 1e9, kAny,
         "Metrics (SWD, FID/KID/PR) every N checkpoints (0: off)", nullptr},
        {"metric_features", "--metric-features", STREETGAN_OPTION_MEMBER(metricFeatures), 0, 0, kAny,
         "TorchScript feature model for metrics (clean-fid's inception-2015-12-05.pt)", nullptr},
        {"metric_samples", "--metric-samples", STREETGAN_OPTION_MEMBER(metricSamples), 2, 1e7, kAny, "Generated (and real) images per metric evaluation",
         nullptr},
        {"metrics", "--metrics", STREETGAN_OPTION_MEMBER(metrics), 0, 0, QualityMetric::namesCsv(), "Metrics at checkpoints: any subset of the choices",
         nullptr},
        {"metric_cache_dir", "--metric-cache-dir", STREETGAN_OPTION_MEMBER(metricCacheDir), 0, 0, kAny,
         "Real-feature cache folder (default $STREETGAN_FID_CACHE or ~/.cache/streetgan/fid)", nullptr},
        {"metric_swd_samples", "--metric-swd-samples", STREETGAN_OPTION_MEMBER(metricSwdSamples), 2, 1e6, kAny,
         "swd: generated (and real) images per evaluation", nullptr},
        {"best_metric", "--best-metric", STREETGAN_OPTION_MEMBER(bestMetric), 0, 0, BestMetric::choicesCsv(),
         "Figure that picks checkpoints/best.pt: swd, fid, kid (lower is better), precision, recall (higher); none: no best", nullptr},
    };
    return options;
}

#undef STREETGAN_OPTION_MEMBER

const TrainOption::Spec* TrainOption::find(std::string_view key) {
    for (const Spec& s : all())
        if (key == s.key) return &s;
    return nullptr;
}

std::string TrainOption::flagName(const Spec& spec) {
    const std::string flag = spec.flag;
    return flag.substr(0, flag.find(','));
}

std::vector<std::string> TrainOption::choices(const Spec& spec) {
    std::vector<std::string> out;
    std::string part;
    std::istringstream in(spec.choices);
    while (std::getline(in, part, ','))
        if (!part.empty()) out.push_back(part);
    return out;
}

}  // namespace streetgan
