// DiffAugment (Zhao et al., NeurIPS 2020, "Differentiable Augmentation for Data-Efficient GAN
// Training"), ported from the official DiffAugment_pytorch.py: the same random transform family is
// applied to every image D sees, real and fake, in D's step and in G's, and every op is
// differentiable, so G's gradient flows through it.
//   color        brightness + U(-0.5, 0.5); saturation: (x - channel mean) x U(0, 2) + mean;
//                contrast: (x - image mean) x U(0.5, 1.5) + mean (one draw per image each)
//   translation  shift by an integer in [-r, r] per axis, r = round(size / 8), zero padding
//   cutout       one square of half the image size (rounded) set to 0, its centre anywhere in
//                the image (clipped at the border)
// The random numbers come from a private generator seeded per step from (run seed, rank, step),
// as DeviceBatch seeds the batch noise: a resumed run draws the same numbers (the step is in the
// checkpoint), torch's default generators are never touched (a run without DiffAugment draws what
// it did before), and each rank of a distributed run draws its own.
// Tensor shapes: x (B, C, H, W) float on any device; the result has x's shape, dtype and device.
// Not thread-safe: one instance per TrainStep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Generator.h>
#include <torch/types.h>

namespace streetgan {

class DiffAugment {
public:
    /// `policy`: a comma-separated subset of color, translation, cutout (TrainConfig::diffAugment,
    /// already validated). Empty: enabled() is false.
    DiffAugment(const std::string& policy, uint64_t seed);

    bool enabled() const { return !ops_.empty(); }
    /// Seeds the generator for one training step; every apply() until the next call draws from it.
    void beginStep(int64_t step, int64_t rank, torch::Device device);
    /// The policy's ops in order, each with its own draws.
    torch::Tensor apply(const torch::Tensor& x);

    // The ops with their random parameters given, for tests and for apply().
    /// shift (B) integer tensors: output[b, :, i, j] = x[b, :, i + dy[b], j + dx[b]], 0 outside.
    static torch::Tensor translate(const torch::Tensor& x, const torch::Tensor& dy, const torch::Tensor& dx);
    /// Zeroes the square of side round(H/2) x round(W/2) centred at (cy[b], cx[b]) (clipped).
    static torch::Tensor cutout(const torch::Tensor& x, const torch::Tensor& cy, const torch::Tensor& cx);
    /// brightness, saturation, contrast with per-image factors (B) as in the paper's code.
    static torch::Tensor color(const torch::Tensor& x, const torch::Tensor& brightness, const torch::Tensor& saturation, const torch::Tensor& contrast);

private:
    std::vector<std::string> ops_;
    uint64_t seed_;
    at::Generator gen_;
};

}  // namespace streetgan
