// Checks that a distributed step computes what one process computes on the whole batch, with the
// run's own model, backend and device (`streetgan-trainer launch --nproc N -- dist-check`).
// Every rank draws the same batch of worldSize x perRank images and latents from one seed, takes
// its slice, and computes D's and G's gradients as TrainStep::update does: D on the real images,
// then on G(z).detach() with the second backward pass armed; G through D, armed. GradientSync
// averages them over the process group. Each rank also computes the gradients of the whole batch
// alone and compares.
//
// BatchNorm runs in eval mode (its running statistics) for the check: every image's output is
// then independent of the others in its batch, so the split is exact up to floating-point
// summation order. In training mode each rank normalises with its own slice's statistics (as DDP
// does without SyncBatchNorm), and a 2-rank step differs from the doubled batch's by design.
#pragma once

#include <cstddef>
#include <cstdint>

#include <torch/types.h>
#include <nlohmann/json_fwd.hpp>

#include "base/model/ModelConfig.h"

namespace streetgan {

class DistributedContext;

class DistCheck {
public:
    struct Options {
        ModelConfig model;
        int64_t perRank = 8;  // images per rank; the whole batch is worldSize times this
        uint64_t seed = 1;
        size_t bucketBytes = size_t{4} << 20;  // GradientSync's bucket size (the trainer's default)
    };
    struct Result {
        double dMaxDiff = 0, dMaxRef = 0;  // largest |averaged - whole batch| and |whole batch| over D's gradients
        double gMaxDiff = 0, gMaxRef = 0;  // the same for G's
        size_t dBuckets = 0, gBuckets = 0;
        double dRelative() const { return dMaxRef > 0 ? dMaxDiff / dMaxRef : dMaxDiff; }
        double gRelative() const { return gMaxRef > 0 ? gMaxDiff / gMaxRef : gMaxDiff; }
        /// The relative difference a correct run stays under on `device`: float32 summation order
        /// on the CPU; TF32 convolutions, whose cuDNN algorithms differ with the batch size, on CUDA.
        static double tolerance(const torch::Device& device);
        nlohmann::json toJson() const;
    };

    /// Runs the check on this rank (every rank must call it with the same options); throws Error
    /// when a collective fails.
    static Result run(DistributedContext& dist, const Options& options, const torch::Device& device);
};

}  // namespace streetgan
