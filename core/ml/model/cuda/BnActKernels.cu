// BatchNorm (training statistics given) fused with ReLU / LeakyReLU: one elementwise pass forward,
// one per-channel reduction and one elementwise pass backward. See BnActKernels.h.
// Channels-last (NHWC) is the training layout and gets 2-D blocks: threads across the channels,
// each with a pack of up to 16 bytes of neighbouring channels (8 bfloat16), rows down the block,
// so loads are wide and coalesced and no thread divides an index by C. NCHW uses a
// flat grid-stride loop (correct, slower). Accumulation in float32 whatever the input dtype.
#include "ml/model/cuda/BnActKernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace streetgan::BnActKernels {
namespace {

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

// VEC channels side by side per thread, loaded and stored as one 16-byte (or smaller) access.
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Pack {
    T v[VEC];
};

// Channels-last blocks: blockDim.x threads across channel groups of VEC, blockDim.y down the rows.
__device__ __forceinline__ int64_t firstChannel(int vec) { return (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * vec; }
__device__ __forceinline__ int64_t firstRow() { return static_cast<int64_t>(blockIdx.y) * blockDim.y + threadIdx.y; }
__device__ __forceinline__ int64_t rowStride() { return static_cast<int64_t>(gridDim.y) * blockDim.y; }

template <typename T, int VEC>
__global__ void forwardNhwc(const T* __restrict__ x, T* __restrict__ y, int64_t rows, int64_t C, Channels ch, float slope) {
    const int64_t c0 = firstChannel(VEC);
    if (c0 >= C) return;
    float scale[VEC], shift[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        const ChannelParams p = channelParams(ch, c0 + k);
        scale[k] = p.scale;
        shift[k] = p.shift;
    }
    for (int64_t r = firstRow(); r < rows; r += rowStride()) {
        const Pack<T, VEC> in = *reinterpret_cast<const Pack<T, VEC>*>(x + r * C + c0);
        Pack<T, VEC> out;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const float v = toFloat(in.v[k]) * scale[k] + shift[k];
            out.v[k] = fromFloat<T>(v > 0.f ? v : v * slope);
        }
        *reinterpret_cast<Pack<T, VEC>*>(y + r * C + c0) = out;
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

template <typename T, int VEC>
__global__ void reduceNhwc(const T* __restrict__ dy, const T* __restrict__ x, int64_t rows, int64_t C, Channels ch, float slope, float* sumG, float* sumGXhat) {
    const int64_t c0 = firstChannel(VEC);
    float g[VEC] = {}, gx[VEC] = {};
    if (c0 < C) {  // no early return: every thread reaches the __syncthreads below
        ChannelParams p[VEC];
#pragma unroll
        for (int k = 0; k < VEC; ++k) p[k] = channelParams(ch, c0 + k);
        for (int64_t r = firstRow(); r < rows; r += rowStride()) {
            const Pack<T, VEC> xs = *reinterpret_cast<const Pack<T, VEC>*>(x + r * C + c0);
            const Pack<T, VEC> dys = *reinterpret_cast<const Pack<T, VEC>*>(dy + r * C + c0);
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const float xv = toFloat(xs.v[k]);
                const float xhat = (xv - p[k].mean) * p[k].invstd;
                const float gi = gradThroughAct(toFloat(dys.v[k]), xv * p[k].scale + p[k].shift, slope);
                g[k] += gi;
                gx[k] += gi * xhat;
            }
        }
    }
    // The block's rows summed in shared memory ([2][blockDim.y][blockDim.x * VEC]), then one atomic per channel and block.
    extern __shared__ float smem[];
    const int width = blockDim.x * VEC;
    float* sg = smem;
    float* sgx = smem + blockDim.y * width;
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        sg[threadIdx.y * width + threadIdx.x * VEC + k] = g[k];
        sgx[threadIdx.y * width + threadIdx.x * VEC + k] = gx[k];
    }
    __syncthreads();
    const int64_t cBase = static_cast<int64_t>(blockIdx.x) * width;
    for (int col = threadIdx.y * blockDim.x + threadIdx.x; col < width; col += blockDim.x * blockDim.y) {
        if (cBase + col >= C) continue;
        float tg = 0.f, tgx = 0.f;
        for (int r = 0; r < static_cast<int>(blockDim.y); ++r) {
            tg += sg[r * width + col];
            tgx += sgx[r * width + col];
        }
        atomicAdd(sumG + cBase + col, tg);
        atomicAdd(sumGXhat + cBase + col, tgx);
    }
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

template <typename T, int VEC>
__global__ void applyNhwc(const T* __restrict__ dy, const T* __restrict__ x, T* __restrict__ dx, int64_t rows, int64_t C, Channels ch, float slope,
                          const float* sumG, const float* sumGXhat) {
    const int64_t c0 = firstChannel(VEC);
    if (c0 >= C) return;
    ChannelParams p[VEC];
    float meanG[VEC], meanGX[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        p[k] = channelParams(ch, c0 + k);
        meanG[k] = sumG[c0 + k] / static_cast<float>(rows);
        meanGX[k] = sumGXhat[c0 + k] / static_cast<float>(rows);
    }
    for (int64_t r = firstRow(); r < rows; r += rowStride()) {
        const Pack<T, VEC> xs = *reinterpret_cast<const Pack<T, VEC>*>(x + r * C + c0);
        const Pack<T, VEC> dys = *reinterpret_cast<const Pack<T, VEC>*>(dy + r * C + c0);
        Pack<T, VEC> out;
#pragma unroll
        for (int k = 0; k < VEC; ++k) out.v[k] = fromFloat<T>(dxOf(toFloat(dys.v[k]), toFloat(xs.v[k]), p[k], slope, meanG[k], meanGX[k]));
        *reinterpret_cast<Pack<T, VEC>*>(dx + r * C + c0) = out;
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

// Channels-last launch geometry: 256 threads, up to 32 across channel groups of VEC, the rest
// down the rows; enough row blocks to fill a large GPU (about 2048 blocks in all) while each
// thread still walks at least 4 rows (a block adds one atomic per channel in the reduction).
struct Tile {
    dim3 grid, block;
    size_t reduceShared;  // bytes of shared memory reduceNhwc needs
};
Tile tileFor(const Shape& s, int vec) {
    const int64_t groups = s.c / vec;
    const int bx = static_cast<int>(std::min<int64_t>(32, groups));
    const int by = 256 / bx;
    const int64_t rows = s.n * s.hw;
    const int64_t cBlocks = (groups + bx - 1) / bx;
    const int64_t wanted = std::max<int64_t>(1, 2048 / cBlocks);
    const int64_t byWork = std::max<int64_t>(1, (rows + by * 4 - 1) / (by * 4));
    const auto gy = static_cast<unsigned>(std::min<int64_t>({wanted, byWork, 65535}));
    return {dim3(static_cast<unsigned>(cBlocks), gy), dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by)),
            2 * sizeof(float) * static_cast<size_t>(by) * static_cast<size_t>(bx) * static_cast<size_t>(vec)};
}
// The widest pack (at most 16 bytes) that C and every pointer's alignment allow.
template <typename T>
int packWidth(const Shape& s, std::initializer_list<const void*> ptrs) {
    for (int vec = static_cast<int>(16 / sizeof(T)); vec > 1; vec /= 2) {
        bool ok = s.c % vec == 0;
        for (const void* q : ptrs) ok = ok && reinterpret_cast<uintptr_t>(q) % (vec * sizeof(T)) == 0;
        if (ok) return vec;
    }
    return 1;
}
// Calls f(std::integral_constant<int, VEC>) for vec in {1, 2, 4, 8}.
template <typename F>
void byVec(int vec, F&& f) {
    switch (vec) {
        case 8:
            f(std::integral_constant<int, 8>{});
            break;
        case 4:
            f(std::integral_constant<int, 4>{});
            break;
        case 2:
            f(std::integral_constant<int, 2>{});
            break;
        default:
            f(std::integral_constant<int, 1>{});
            break;
    }
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
        byVec(packWidth<T>(s, {x, y}), [&](auto v) {
            constexpr int V = decltype(v)::value;
            if constexpr (V * sizeof(T) <= 16) {
                const Tile t = tileFor(s, V);
                forwardNhwc<T, V><<<t.grid, t.block, 0, st>>>(xs, ys, s.n * s.hw, s.c, ch, slope);
            }
        });
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
        byVec(packWidth<T>(s, {dy, x}), [&](auto v) {
            constexpr int V = decltype(v)::value;
            if constexpr (V * sizeof(T) <= 16) {
                const Tile t = tileFor(s, V);
                reduceNhwc<T, V><<<t.grid, t.block, t.reduceShared, st>>>(dys, xs, s.n * s.hw, s.c, ch, slope, sumG, sumGXhat);
            }
        });
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
        byVec(packWidth<T>(s, {dy, x, dx}), [&](auto v) {
            constexpr int V = decltype(v)::value;
            if constexpr (V * sizeof(T) <= 16) {
                const Tile t = tileFor(s, V);
                applyNhwc<T, V><<<t.grid, t.block, 0, st>>>(dys, xs, dxs, s.n * s.hw, s.c, ch, slope, sumG, sumGXhat);
            }
        });
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
