// The name CUDA gives a GPU ("NVIDIA H200"), for the figures a bench reports (GpuPeak's MFU).
#pragma once

#include <string>

#include <torch/types.h>

namespace streetgan {

struct GpuName {
    /// The device's name; empty for a CPU, or where the build has no CUDA.
    static std::string of(torch::Device device);
};

}  // namespace streetgan
