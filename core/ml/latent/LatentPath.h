// A latent walk through keyframes: the frames that `render` and the app's explorer show.
//
// Frame count, frame placement, t ranges (extrapolation past the keyframes) and interpolation:
// base/latent/WalkRule.h (the rule the session file and the app share).
// Keyframes are float vectors of nz elements (any shape with nz elements: (nz), (nz, 1, 1),
// (1, nz, 1, 1)); they are copied to CPU float32 (nz). Immutable after construction; all methods
// are const and thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "base/latent/Easing.h"
#include "base/latent/WalkRule.h"

namespace streetgan {

class LatentPath {
public:
    using Interpolation = WalkRule::Interpolation;

    struct Options {
        Interpolation interpolation = Interpolation::Slerp;
        Easing::Kind easing = Easing::Kind::Linear;  ///< for every segment without its own easing
        int framesPerSegment = 8;                    ///< F, 1 .. 100000
        bool loop = true;
        /// Optional easing per segment (index s = segment from keyframe s); shorter lists fall
        /// back to `easing` for the remaining segments.
        std::vector<Easing::Kind> segmentEasing;
        WalkRule::TRange range;  ///< for every segment without its own ([0, 1]: keyframe to keyframe)
        /// Optional t range per segment, falling back to `range` like segmentEasing.
        std::vector<WalkRule::TRange> segmentRange;
    };

    /// Throws ConfigError for no keyframes, F < 1, keyframes of different sizes or not floating
    /// point, a t range outside WalkRule::checkRange; DataError for non-finite values.
    LatentPath(const std::vector<at::Tensor>& keyframes, Options options);

    /// N of WalkRule::frameCount.
    static int64_t frameCount(int64_t keyframes, int framesPerSegment, bool loop) { return WalkRule::frameCount(keyframes, framesPerSegment, loop); }
    int64_t frameCount() const { return frameCount(static_cast<int64_t>(keyframes_.size()), options_.framesPerSegment, options_.loop); }
    int64_t segmentCount() const;
    int64_t nz() const { return keyframes_.front().numel(); }
    const Options& options() const { return options_; }

    /// Latent of frame i, float32 (nz) on the CPU. With loop, any i is taken modulo N (so frame N
    /// is frame 0); without loop, i must be in 0..N-1 (ConfigError otherwise). A frame at t = 0 or
    /// t = 1 is its keyframe exactly (a copy).
    at::Tensor frame(int64_t i) const;
    /// t of frame i (WalkRule::place and WalkRule::t; same checks as frame()).
    double frameT(int64_t i) const;
    /// All frames, float32 (N, nz, 1, 1) on the CPU: the generator's input.
    at::Tensor frames() const;

private:
    std::vector<at::Tensor> keyframes_;
    Options options_;
};

}  // namespace streetgan
