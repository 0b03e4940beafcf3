// The explore worker's loaded generators: an LRU of at most `capacity` (default 4) checkpoints,
// keyed by path and modification time (a checkpoint rewritten in place is loaded again). Each entry
// holds the generator on the cache's device in eval mode and what the `open` op reports about the
// checkpoint; the discriminator and optimiser states are dropped after loading. The cache's
// precision ("auto", "bf16", "fp32": RenderPrecision::choose) decides per checkpoint what its
// preview frames are rendered in; a bfloat16 entry also holds its FrozenGenerator, built once at
// load (it reorders every weight). "auto" falls back to float32 where bfloat16 cannot run.
//
// Thread contract: not thread-safe; the explore worker uses it from its render thread only.
// Entries are shared_ptrs, so one evicted while a caller still renders with it stays valid.
#pragma once

#include <cstdint>
#include <list>

#include <memory>
#include <string>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "ml/checkpoint/ModelLoader.h"
#include "ml/model/FrozenGenerator.h"
#include "ml/model/Generator.h"

namespace streetgan {

struct LoadedGenerator {
    std::string path;
    Generator g{nullptr};
    std::string preset;  ///< the matching preset's name (generator side), or "custom"
    int64_t nz = 0, imgSize = 0;
    std::string sha256;  ///< of the checkpoint file
    int64_t epoch = 0;
    int64_t step = -1;                                                           ///< -1: unknown (reference checkpoints)
    bool reference = false;                                                      ///< a reference Python checkpoint
    int64_t gParams = 0;                                                         ///< trainable generator parameters
    at::Tensor fixedNoise;                                                       ///< (K, nz, 1, 1) float32 on the CPU, or undefined
    FrozenGenerator::Precision precision = FrozenGenerator::Precision::Float32;  ///< of preview frames
    std::shared_ptr<const FrozenGenerator> frozen;                               ///< set for BFloat16
};

class GeneratorCache {
public:
    /// `choice`: which of a checkpoint's generators to load (ModelLoader: G_ema by default);
    /// `precision`: of the preview frames (ConfigError for another name, or "bf16" on CUDA).
    explicit GeneratorCache(c10::Device device, size_t capacity = 4, GeneratorChoice choice = GeneratorChoice::Default, std::string precision = "auto");

    /// The generator of the checkpoint at `path`, loaded on first use (or when its mtime changed).
    /// Throws IoError when the file is missing, CheckpointError naming the path when it cannot be
    /// read or is not a supported architecture, ConfigError when "bf16" was asked for and this CPU
    /// cannot run it.
    std::shared_ptr<const LoadedGenerator> get(const std::string& path);

    size_t size() const { return entries_.size(); }
    const c10::Device& device() const { return device_; }
    const std::string& precision() const { return precision_; }

private:
    struct Entry {
        std::string path;
        int64_t mtime = 0;
        std::shared_ptr<const LoadedGenerator> loaded;
    };
    c10::Device device_;
    size_t capacity_;
    GeneratorChoice choice_;
    std::string precision_;
    std::list<Entry> entries_;  ///< most recently used first
};

}  // namespace streetgan
