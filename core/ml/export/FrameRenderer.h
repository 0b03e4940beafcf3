// Generator output as display frames: the pixels the app's explorer shows and `render` writes.
// z (N, nz, 1, 1) -> the generator in eval mode (BatchNorm running statistics) under
// c10::InferenceMode, in batches of `batch` on the generator's device (CPU or CUDA) -> [-1, 1]
// mapped to uint8 like save_image ((x + 1) / 2 * 255 + 0.5, clamped, truncated: GifWriter::
// fromImages) -> RGB channels last (N, size, size, 3) on the CPU, upscaled (or downscaled) from the
// model's resolution by PixelResize: Nearest (hard pixel edges), Smooth = cubic when enlarging,
// area when shrinking (OpenCV's INTER_NEAREST, INTER_CUBIC, INTER_AREA). size == the model's resolution copies the pixels.
// Precision::BFloat16 runs a FrozenGenerator in bfloat16 on the CPU instead of the module (the
// explorer's preview where it pays, RenderPrecision): frames within RenderPrecision::kMinPsnrDb of
// float32's. Float32 (the default) is Generator::forward: the bytes `render` writes.
//
// Thread contract: a FrameRenderer shares the Generator module it was given (ownership is shared
// through the module holder) and runs it; use one instance from one thread at a time (LibTorch
// modules are not thread-safe). A FrozenGenerator it was given is only read (any thread). The progress callback runs on the calling thread after each batch;
// `cancel` is polled between batches (then RenderCancelled is thrown).
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include <ATen/core/Tensor.h>

#include "base/util/Errors.h"
#include "ml/model/FrozenGenerator.h"
#include "ml/model/Generator.h"

namespace streetgan {

/// Thrown by renderers and exporters when their cancel flag was raised; nothing was written.
class RenderCancelled : public Error {
public:
    using Error::Error;
};

/// (frames done, frames total), after each batch or frame.
using FrameProgress = std::function<void(int64_t done, int64_t total)>;

class FrameRenderer {
public:
    enum class Upscale { Nearest, Smooth };
    struct Options {
        int size = 128;  ///< output edge in pixels, 1..4096
        Upscale upscale = Upscale::Nearest;
        int batch = 16;  ///< latents per generator call, 1..4096
        FrozenGenerator::Precision precision = FrozenGenerator::Precision::Float32;
    };

    /// Puts `g` in eval mode. Throws ConfigError for options out of range. With BFloat16, `frozen`
    /// is used when given (a bfloat16 FrozenGenerator of `g`: building one reorders every weight,
    /// so callers that render often keep it; ConfigError for one of another precision), else one is
    /// built here (ConfigError when this CPU cannot run bfloat16).
    FrameRenderer(Generator g, Options options, std::shared_ptr<const FrozenGenerator> frozen = nullptr);

    /// Latents (N, nz, 1, 1) or (N, nz), any device -> uint8 (N, size, size, 3) on the CPU.
    /// Throws DataError for latents of another nz, RenderCancelled on cancel.
    at::Tensor render(const at::Tensor& z, const FrameProgress& progress = {}, const std::atomic<bool>* cancel = nullptr) const;
    /// One frame: z (nz) or (1, nz, 1, 1) -> uint8 (size, size, 3).
    at::Tensor renderOne(const at::Tensor& z) const;

    /// uint8 (N, H, W, 3) frames resized to (N, size, size, 3) with `mode` (a copy when the size
    /// already matches).
    static at::Tensor resize(const at::Tensor& framesHwc, int size, Upscale mode);

    const Options& options() const { return options_; }
    int64_t nz() const;

private:
    Generator g_;
    Options options_;
    std::shared_ptr<const FrozenGenerator> frozen_;  ///< set for BFloat16 only
};

}  // namespace streetgan
