// A latent walk through keyframes: the frames that `render` and the app's explorer show.
//
// Frame-count rule (CLI.md, "Session file"): every segment contributes frames_per_segment = F
// frames, sampled at t = j / F, j = 0..F-1 (the segment's start keyframe is included, its end
// keyframe is not: it begins the next segment). With K keyframes:
//   loop:    K segments (the last returns from keyframe K-1 to keyframe 0): N = K * F frames
//            (3 keyframes, 8 frames per segment: 24 frames, CLI.md's example). Frame N would be
//            keyframe 0 again, so the animation repeats seamlessly.
//   no loop: K - 1 segments plus the final keyframe itself: N = (K - 1) * F + 1 frames
//            (3 keyframes, F = 8: 17 frames; the last frame is exactly keyframe K-1).
// A single keyframe gives F identical frames with loop and 1 frame without.
// Frame i lies in segment s = i / F at t = (i % F) / F; the segment's easing maps t to e(t), and
// the latent is Slerp::interpolate(k_s, k_{s+1}, e(t)) (the reference SLERP formula) or the linear
// blend (1 - e) k_s + e k_{s+1} (also used by SLERP paths for a segment with an all-zero keyframe,
// which has no direction). Keyframes are exact: frame s * F equals keyframe s bit for bit.
//
// Keyframes are float vectors of nz elements (any shape with nz elements: (nz), (nz, 1, 1),
// (1, nz, 1, 1)); they are copied to CPU float32 (nz). Immutable after construction; all methods
// are const and thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "latent/Easing.h"

namespace streetgan {

class LatentPath {
public:
    enum class Interpolation { Slerp, Linear };

    struct Options {
        Interpolation interpolation = Interpolation::Slerp;
        Easing::Kind easing = Easing::Kind::Linear;  ///< for every segment without its own easing
        int framesPerSegment = 8;                     ///< F, 1 .. 100000
        bool loop = true;
        /// Optional easing per segment (index s = segment from keyframe s); shorter lists fall
        /// back to `easing` for the remaining segments.
        std::vector<Easing::Kind> segmentEasing;
    };

    /// Throws ConfigError for no keyframes, F < 1, keyframes of different sizes or not floating
    /// point; DataError for non-finite values.
    LatentPath(const std::vector<at::Tensor>& keyframes, Options options);

    /// N of the rule above.
    static int64_t frameCount(int64_t keyframes, int framesPerSegment, bool loop);
    int64_t frameCount() const { return frameCount(static_cast<int64_t>(keyframes_.size()), options_.framesPerSegment, options_.loop); }
    int64_t segmentCount() const;
    int64_t nz() const { return keyframes_.front().numel(); }
    const Options& options() const { return options_; }

    /// Latent of frame i, float32 (nz) on the CPU. With loop, any i is taken modulo N (so frame N
    /// is frame 0 = keyframe 0); without loop, i must be in 0..N-1 (ConfigError otherwise).
    at::Tensor frame(int64_t i) const;
    /// All frames, float32 (N, nz, 1, 1) on the CPU: the generator's input.
    at::Tensor frames() const;

private:
    std::vector<at::Tensor> keyframes_;
    Options options_;
};

}  // namespace streetgan
