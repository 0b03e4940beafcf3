// Host launchers of the BatchNorm-plus-activation kernels (BnActKernels.cu, nvcc, `cuda` preset
// only). Plain pointers and sizes in, so that neither side needs the other's headers: the caller
// (ml/model/FusedBnAct.cpp) does the ATen part and passes the current CUDA stream as `stream`.
// Tensors are dense: NCHW contiguous, or NHWC (channels-last) contiguous. Per-channel arrays
// (mean, invstd, weight, bias, sums) are float32 of length c; weight/bias may be null (no affine:
// 1 and 0). act(v) = v > 0 ? v : slope * v (slope 0: ReLU). Every launcher throws
// std::runtime_error naming itself when a launch fails.
#pragma once

#include <cstdint>

namespace streetgan::BnActKernels {

enum class Dtype { Float32, BFloat16, Float16 };

struct Shape {
    int64_t n = 0, c = 0, hw = 0;  // hw: H * W
    bool channelsLast = false;
};

struct Channels {
    const float* mean = nullptr;
    const float* invstd = nullptr;
    const float* weight = nullptr;  // null: 1
    const float* bias = nullptr;    // null: 0
};

/// y = act((x - mean) * invstd * weight + bias), elementwise; y in x's dtype and layout.
void forward(const void* x, void* y, Dtype dt, const Shape& s, const Channels& ch, float slope, void* stream);

/// Per channel: sumG += sum(g), sumGXhat += sum(g * xhat), g = dy * act'(pre), xhat = (x - mean) * invstd.
/// sumG and sumGXhat must be zeroed by the caller (they are accumulated with atomics).
void backwardReduce(const void* dy, const void* x, Dtype dt, const Shape& s, const Channels& ch, float slope, float* sumG, float* sumGXhat, void* stream);

/// dx = weight * invstd * (g - sumG / m - xhat * sumGXhat / m), m = n * hw.
void backwardApply(const void* dy, const void* x, void* dx, Dtype dt, const Shape& s, const Channels& ch, float slope, const float* sumG, const float* sumGXhat,
                   void* stream);

}  // namespace streetgan::BnActKernels
