// Dense tensor-core peaks of the GPUs our users train on (NVIDIA's data sheets, without
// sparsity), the denominator of MFU in `bench train`. A GPU not listed has no figure (the bench
// then prints none unless --peak-tflops gives one): a wrong peak would make a wrong MFU.
#pragma once

#include <optional>
#include <string>

namespace streetgan {

struct GpuPeak {
    /// TFLOP/s of `gpuName` (as CUDA names it, e.g. "NVIDIA H200") in `precision`: bf16, fp16,
    /// tf32 (fp32 convolutions on tensor cores, PyTorch's default for cuDNN) or fp32.
    static std::optional<double> tflops(const std::string& gpuName, const std::string& precision);
};

}  // namespace streetgan
