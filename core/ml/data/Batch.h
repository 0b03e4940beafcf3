// One training step's inputs, produced ahead of time by BatchLoader.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace streetgan {

struct Batch {
    int64_t step = 0;  ///< global optimiser step this batch is for
    int64_t epoch = 0;
    torch::Tensor real;          ///< (B, 3, S, S) float32 in [-1, 1], CPU (pinned when requested)
    torch::Tensor noise;         ///< (B, nz, 1, 1) float32 ~ N(0, 1): the generator's input this step
    torch::Tensor instanceReal;  ///< (B, 3, S, S) N(0, 1) draws for instance noise, or undefined
    torch::Tensor instanceFake;  ///< same, for the fake images
};

}  // namespace streetgan
