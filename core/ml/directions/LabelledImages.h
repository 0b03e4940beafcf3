// The labelled photos a named direction's classifier learns from (issue 44 item 2): images of an
// ImageSource picked by index, at the generator's side, as one float tensor in [-1, 1] (the
// generator's range), with their keys. `streetgan-trainer directions` builds the source: the
// synthetic scenes (SyntheticSource, keys "0", "1", ...) or an MSLS folder (PhotoSource with a
// centre crop, no shift, flip or noise; keys from its index). pick() chooses at most `max` of the
// labelled indices, the same ones for the same seed.
//
// Thread contract: load() runs on the calling thread (the source may be shared: ImageSource::load
// is thread-safe); `cancel` is polled before each image (RenderCancelled), `progress` called on
// the calling thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "ml/dataset/ImageSource.h"

namespace streetgan {

struct LabelledImages {
    std::vector<std::string> keys;
    at::Tensor images;  ///< float32 (N, 3, side, side) in [-1, 1] on the CPU

    /// (images done, total)
    using ProgressFn = std::function<void(int64_t done, int64_t total)>;

    /// Images `indices` of `source` at `side` px, keyed by `keys` (same length).
    static LabelledImages load(const ImageSource& source, const std::vector<int64_t>& indices, std::vector<std::string> keys, int side,
                               const ProgressFn& progress = {}, const std::atomic<bool>* cancel = nullptr);
    /// Positions 0..count-1 in a seeded order, the first `max` of them, sorted (all when count <= max).
    static std::vector<int64_t> pick(int64_t count, int64_t max, uint64_t seed);
};

}  // namespace streetgan
