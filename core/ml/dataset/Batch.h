// One training step's inputs, produced ahead of time by BatchLoader.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace streetgan {

// Two forms (LoaderOptions::deviceSide): host-ready float tensors, or, for a GPU, the raw uint8
// pixels and a seed, from which TrainStep normalises and draws every random tensor on the device
// (a quarter of the bytes over PCIe, and no N(0, 1) draws on the host).
struct Batch {
    int64_t step = 0;  ///< global optimiser step this batch is for
    int64_t epoch = 0;
    torch::Tensor real;          ///< (B, 3, S, S) float32 in [-1, 1], CPU (pinned when requested); or undefined
    torch::Tensor realU8;        ///< device-side form: (B, S, S, 3) uint8 RGB, pinned; or undefined
    torch::Tensor noise;         ///< (B, nz, 1, 1) float32 ~ N(0, 1): the generator's input this step (both forms; pinned when requested)
    torch::Tensor instanceReal;  ///< (B, 3, S, S) N(0, 1) draws for instance noise, or undefined
    torch::Tensor instanceFake;  ///< same, for the fake images
    uint64_t deviceSeed = 0;     ///< device-side form: seeds this step's draws on the device (augmentation and instance noise)
    double augNoiseStd = 0;      ///< device-side form: ImageSource::noiseStd(), added on the device after normalising

    int64_t size() const { return real.defined() ? real.size(0) : realU8.size(0); }
};

}  // namespace streetgan
