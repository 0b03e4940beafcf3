// Which arithmetic a preview frame is rendered in: float32 (Generator::forward, the bytes `render`
// writes) or bfloat16 (FrozenGenerator::Precision::BFloat16: oneDNN on AVX512-BF16/AMX, frames
// within kMinPsnrDb of float32's; tests/ml/export/RenderPrecisionTest).
//
// choose() is the explore worker's rule (`explore-worker --precision auto|bf16|fp32`):
//   fp32  always float32;
//   bf16  bfloat16 on the CPU (ConfigError on a CUDA device: FrozenGenerator runs on the CPU);
//   auto  bfloat16 where all three hold, float32 otherwise:
//         - the device is the CPU,
//         - the CPU computes bfloat16 in hardware (cpuBf16(): AVX512-BF16 or AMX-BF16, and the OS
//           saves the AVX-512 state), else oneDNN emulates it and bfloat16 is slower,
//         - a frame costs at least kAutoMinGflop GFLOP (frameGflop()): below that a float32 frame
//           already takes a few ms on a laptop core (naive-64: 0.2 GFLOP, 2.7 ms here), so the
//           explorer keeps float32's exact frames (the tests compare them with `render`'s byte for
//           byte) and loses nothing it would notice; above it (msls-128: 4.4 GFLOP, safe-64: 3.3)
//           float32 is what makes steering stutter.
// Files (export, render) are always float32: only what the explorer shows is bfloat16.
//
// Thread contract: stateless; any thread.
#pragma once

#include <string>

#include <c10/core/Device.h>

#include "base/model/ModelConfig.h"
#include "ml/model/FrozenGenerator.h"

namespace streetgan {

class RenderPrecision {
public:
    using Precision = FrozenGenerator::Precision;

    /// The smallest frame (GFLOP) that `auto` renders in bfloat16.
    static constexpr double kAutoMinGflop = 1.0;
    /// The PSNR (dB) that a bfloat16 frame keeps against the float32 frame of the same latent, on
    /// the demo checkpoints and msls-128's random weights (checked by RenderPrecisionTest).
    static constexpr double kMinPsnrDb = 35.0;

    /// `asked`: "auto", "bf16" or "fp32" (ConfigError naming the value otherwise, or "bf16" on a
    /// CUDA device).
    static Precision choose(const std::string& asked, const ModelConfig& model, const c10::Device& device);
    /// ConfigError unless `asked` is one of the three names.
    static void check(const std::string& asked);

    /// True when this CPU has AVX512-BF16 or AMX-BF16 and the OS enabled the AVX-512 state (cpuid
    /// and xgetbv; false on other architectures).
    static bool cpuBf16();
    /// "amx-bf16", "avx512-bf16" or "none": what cpuBf16() found (the worker's `open` reports it).
    static std::string cpuBf16Name();

    /// Multiply-adds x 2 of one frame of the generator `model` (its transposed convolutions; the
    /// BatchNorms and activations are a rounding error), in GFLOP.
    static double frameGflop(const ModelConfig& model);

    /// "bf16" or "fp32".
    static std::string name(Precision p) { return p == Precision::BFloat16 ? "bf16" : "fp32"; }
};

}  // namespace streetgan
