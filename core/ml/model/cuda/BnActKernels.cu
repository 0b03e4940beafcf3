// BatchNorm (training statistics given) fused with ReLU / LeakyReLU: one elementwise pass forward,
// one per-channel reduction and one elementwise pass backward. See BnActKernels.h.
// Channels-last (NHWC) is the training layout and gets 2-D blocks: 32 channels across a warp (one
// coalesced row segment), rows down the block, so no thread divides an index by C. NCHW uses a
// flat grid-stride loop (correct, slower). Accumulation in float32 whatever the input dtype.
#include "ml/model/cuda/BnActKernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace streetgan::BnActKernels {
namespace {

constexpr int kTileC = 32;  // channels per block (one warp across)
constexpr int kRows = 8;    // rows per block (warps down)
constexpr int kFlatThreads = 256;

__device__ __forceinline__ float toFloat(float v) { return v; }
__device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ __forceinline__ T fromFloat(float v);
template <>
__device__ __forceinline__ float fromFloat<float>(float v) {
    return v;
}
template <>
__device__ __forceinline__ __half fromFloat<__half>(float v) {
    return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}

// One channel's constants: xhat = (x - mean) * invstd; pre = x * scale + shift (= xhat * w + b),
// computed the same way forward and backward so both see the same sign of pre.
struct ChannelParams {
    float mean, invstd, w, scale, shift;
};
__device__ __forceinline__ ChannelParams channelParams(const Channels& ch, int64_t c) {
    const float w = ch.weight ? ch.weight[c] : 1.f;
    const float b = ch.bias ? ch.bias[c] : 0.f;
    const float scale = ch.invstd[c] * w;
    return {ch.mean[c], ch.invstd[c], w, scale, b - ch.mean[c] * scale};
}
// g = dy * act'(pre); the sign of pre is recomputed from x (y is not kept). pre == 0 takes the
// negative side's slope, as torch's threshold_backward / leaky_relu_backward do (x > 0 only).
__device__ __forceinline__ float gradThroughAct(float dy, float pre, float slope) { return pre > 0.f ? dy : dy * slope; }

template <typename T>
__global__ void forwardNhwc(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t C, Channels ch, float slope) {
    const int64_t c = static_cast<int64_t>(blockIdx.x) * kTileC + threadIdx.x;
    if (c >= C) return;
    const ChannelParams p = channelParams(ch, c);
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * kRows + threadIdx.y; r < rows; r += static_cast<int64_t>(gridDim.y) * kRows) {
        const int64_t i = r * C + c;
        const float v = toFloat(x[i]) * p.scale + p.shift;
        y[i] = fromFloat<T>(v > 0.f ? v : v * slope);
    }
}

template <typename T>
__global__ void forwardNchw(const T* __restrict__ x, T* __restrict__ y, int64_t total, int64_t C, int64_t hw, Channels ch, float slope) {
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const ChannelParams p = channelParams(ch, (i / hw) % C);
        const float v = toFloat(x[i]) * p.scale + p.shift;
        y[i] = fromFloat<T>(v > 0.f ? v : v * slope);
    }
}

// Sums the per-thread partials of a (kTileC x kRows) block over its rows, then adds to global.
__device__ __forceinline__ void flushTile(float g, float gx, int64_t c, int64_t C, float* sumG, float* sumGXhat) {
    __shared__ float sg[kRows][kTileC];
    __shared__ float sgx[kRows][kTileC];
    sg[threadIdx.y][threadIdx.x] = g;
    sgx[threadIdx.y][threadIdx.x] = gx;
    __syncthreads();
    if (threadIdx.y == 0 && c < C) {
        float tg = 0.f, tgx = 0.f;
        for (int r = 0; r < kRows; ++r) {
            tg += sg[r][threadIdx.x];
            tgx += sgx[r][threadIdx.x];
        }
        atomicAdd(sumG + c, tg);
        atomicAdd(sumGXhat + c, tgx);
    }
}

template <typename T>
__global__ void reduceNhwc(const T* __restrict__ dy, const T* __restrict__ x, int64_t rows, int64_t C, Channels ch, float slope, float* sumG, float* sumGXhat) {
    const int64_t c = static_cast<int64_t>(blockIdx.x) * kTileC + threadIdx.x;
    float g = 0.f, gx = 0.f;
    if (c < C) {  // no early return: every thread reaches the __syncthreads in flushTile
        const ChannelParams p = channelParams(ch, c);
        for (int64_t r = static_cast<int64_t>(blockIdx.y) * kRows + threadIdx.y; r < rows; r += static_cast<int64_t>(gridDim.y) * kRows) {
            const int64_t i = r * C + c;
            const float xv = toFloat(x[i]);
            const float xhat = (xv - p.mean) * p.invstd;
            const float gi = gradThroughAct(toFloat(dy[i]), xv * p.scale + p.shift, slope);
            g += gi;
            gx += gi * xhat;
        }
    }
    flushTile(g, gx, c, C, sumG, sumGXhat);
}

// NCHW: block (c = blockIdx.x, a range of images from blockIdx.y), threads over that range's planes.
template <typename T>
__global__ void reduceNchw(const T* __restrict__ dy, const T* __restrict__ x, int64_t N, int64_t C, int64_t hw, int64_t imagesPerBlock, Channels ch,
                           float slope, float* sumG, float* sumGXhat) {
    const int64_t c = blockIdx.x;
    const ChannelParams p = channelParams(ch, c);
    const int64_t n0 = static_cast<int64_t>(blockIdx.y) * imagesPerBlock;
    const int64_t n1 = n0 + imagesPerBlock < N ? n0 + imagesPerBlock : N;
    const int64_t count = n0 < n1 ? (n1 - n0) * hw : 0;
    float g = 0.f, gx = 0.f;
    for (int64_t j = threadIdx.x; j < count; j += blockDim.x) {
        const int64_t n = n0 + j / hw;
        const int64_t i = (n * C + c) * hw + j % hw;
        const float xv = toFloat(x[i]);
        const float xhat = (xv - p.mean) * p.invstd;
        const float gi = gradThroughAct(toFloat(dy[i]), xv * p.scale + p.shift, slope);
        g += gi;
        gx += gi * xhat;
    }
    __shared__ float sg[kFlatThreads];
    __shared__ float sgx[kFlatThreads];
    sg[threadIdx.x] = g;
    sgx[threadIdx.x] = gx;
    __syncthreads();
    for (int s = kFlatThreads / 2; s > 0; s >>= 1) {
        if (static_cast<int>(threadIdx.x) < s) {
            sg[threadIdx.x] += sg[threadIdx.x + s];
            sgx[threadIdx.x] += sgx[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(sumG + c, sg[0]);
        atomicAdd(sumGXhat + c, sgx[0]);
    }
}

__device__ __forceinline__ float dxOf(float dyv, float xv, const ChannelParams& p, float slope, float meanG, float meanGX) {
    const float xhat = (xv - p.mean) * p.invstd;
    const float g = gradThroughAct(dyv, xv * p.scale + p.shift, slope);
    return p.w * p.invstd * (g - meanG - xhat * meanGX);
}

template <typename T>
__global__ void applyNhwc(const T* __restrict__ dy, const T* __restrict__ x, T* __restrict__ dx, int64_t rows, int64_t C, Channels ch, float slope,
                          const float* sumG, const float* sumGXhat) {
    const int64_t c = static_cast<int64_t>(blockIdx.x) * kTileC + threadIdx.x;
    if (c >= C) return;
    const ChannelParams p = channelParams(ch, c);
    const float meanG = sumG[c] / static_cast<float>(rows);
    const float meanGX = sumGXhat[c] / static_cast<float>(rows);
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * kRows + threadIdx.y; r < rows; r += static_cast<int64_t>(gridDim.y) * kRows) {
        const int64_t i = r * C + c;
        dx[i] = fromFloat<T>(dxOf(toFloat(dy[i]), toFloat(x[i]), p, slope, meanG, meanGX));
    }
}

template <typename T>
__global__ void applyNchw(const T* __restrict__ dy, const T* __restrict__ x, T* __restrict__ dx, int64_t total, int64_t C, int64_t hw, Channels ch, float slope,
                          const float* sumG, const float* sumGXhat) {
    const float m = static_cast<float>(total / C);
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int64_t c = (i / hw) % C;
        const ChannelParams p = channelParams(ch, c);
        dx[i] = fromFloat<T>(dxOf(toFloat(dy[i]), toFloat(x[i]), p, slope, sumG[c] / m, sumGXhat[c] / m));
    }
}

// Launch geometry. Row blocks: enough to fill a large GPU (about 2048 blocks in all) while each
// thread still walks at least 16 rows (fewer blocks means fewer atomics in the reduction).
dim3 tileGrid(const Shape& s) {
    const int64_t rows = s.n * s.hw;
    const int64_t cBlocks = (s.c + kTileC - 1) / kTileC;
    const int64_t wanted = std::max<int64_t>(1, 2048 / cBlocks);
    const int64_t byWork = std::max<int64_t>(1, (rows + kRows * 16 - 1) / (kRows * 16));
    return dim3(static_cast<unsigned>(cBlocks), static_cast<unsigned>(std::min<int64_t>({wanted, byWork, 65535})));
}
unsigned flatBlocks(int64_t total) { return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((total + kFlatThreads - 1) / kFlatThreads, 65536))); }

void check(const char* what) {
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw std::runtime_error(std::string("BnActKernels::") + what + ": " + cudaGetErrorString(e));
}

template <typename T>
void forwardT(const void* x, void* y, const Shape& s, const Channels& ch, float slope, cudaStream_t st) {
    const T* xs = static_cast<const T*>(x);
    T* ys = static_cast<T*>(y);
    if (s.channelsLast) {
        forwardNhwc<T><<<tileGrid(s), dim3(kTileC, kRows), 0, st>>>(xs, ys, s.n * s.hw, s.c, ch, slope);
    } else {
        const int64_t total = s.n * s.c * s.hw;
        forwardNchw<T><<<flatBlocks(total), kFlatThreads, 0, st>>>(xs, ys, total, s.c, s.hw, ch, slope);
    }
}

template <typename T>
void reduceT(const void* dy, const void* x, const Shape& s, const Channels& ch, float slope, float* sumG, float* sumGXhat, cudaStream_t st) {
    const T* dys = static_cast<const T*>(dy);
    const T* xs = static_cast<const T*>(x);
    if (s.channelsLast) {
        reduceNhwc<T><<<tileGrid(s), dim3(kTileC, kRows), 0, st>>>(dys, xs, s.n * s.hw, s.c, ch, slope, sumG, sumGXhat);
    } else {
        // About 2048 blocks in all, each covering at least 4096 elements of its channel.
        const int64_t perImageBlocks = std::max<int64_t>(1, 2048 / std::max<int64_t>(1, s.c));
        const int64_t byWork = std::max<int64_t>(1, (s.n * s.hw + 4095) / 4096);
        const int64_t splits = std::min<int64_t>({perImageBlocks, byWork, s.n, 65535});
        const int64_t perBlock = (s.n + splits - 1) / splits;
        const dim3 grid(static_cast<unsigned>(s.c), static_cast<unsigned>((s.n + perBlock - 1) / perBlock));
        reduceNchw<T><<<grid, kFlatThreads, 0, st>>>(dys, xs, s.n, s.c, s.hw, perBlock, ch, slope, sumG, sumGXhat);
    }
}

template <typename T>
void applyT(const void* dy, const void* x, void* dx, const Shape& s, const Channels& ch, float slope, const float* sumG, const float* sumGXhat,
            cudaStream_t st) {
    const T* dys = static_cast<const T*>(dy);
    const T* xs = static_cast<const T*>(x);
    T* dxs = static_cast<T*>(dx);
    if (s.channelsLast) {
        applyNhwc<T><<<tileGrid(s), dim3(kTileC, kRows), 0, st>>>(dys, xs, dxs, s.n * s.hw, s.c, ch, slope, sumG, sumGXhat);
    } else {
        const int64_t total = s.n * s.c * s.hw;
        applyNchw<T><<<flatBlocks(total), kFlatThreads, 0, st>>>(dys, xs, dxs, total, s.c, s.hw, ch, slope, sumG, sumGXhat);
    }
}

template <typename F>
void byDtype(Dtype dt, F&& f) {
    switch (dt) {
        case Dtype::Float32:
            f(float{});
            break;
        case Dtype::BFloat16:
            f(__nv_bfloat16{});
            break;
        case Dtype::Float16:
            f(__half{});
            break;
    }
}

}  // namespace

void forward(const void* x, void* y, Dtype dt, const Shape& s, const Channels& ch, float slope, void* stream) {
    if (s.n * s.c * s.hw == 0) return;
    byDtype(dt, [&](auto tag) { forwardT<decltype(tag)>(x, y, s, ch, slope, static_cast<cudaStream_t>(stream)); });
    check("forward");
}

void backwardReduce(const void* dy, const void* x, Dtype dt, const Shape& s, const Channels& ch, float slope, float* sumG, float* sumGXhat, void* stream) {
    if (s.n * s.c * s.hw == 0) return;
    byDtype(dt, [&](auto tag) { reduceT<decltype(tag)>(dy, x, s, ch, slope, sumG, sumGXhat, static_cast<cudaStream_t>(stream)); });
    check("backwardReduce");
}

void backwardApply(const void* dy, const void* x, void* dx, Dtype dt, const Shape& s, const Channels& ch, float slope, const float* sumG, const float* sumGXhat,
                   void* stream) {
    if (s.n * s.c * s.hw == 0) return;
    byDtype(dt, [&](auto tag) { applyT<decltype(tag)>(dy, x, dx, s, ch, slope, sumG, sumGXhat, static_cast<cudaStream_t>(stream)); });
    check("backwardApply");
}

}  // namespace streetgan::BnActKernels
