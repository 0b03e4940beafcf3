// The shape of a latent walk, shared by the session file (LatentSession), the app's explorer and the
// tensor path (ml/latent/LatentPath) so that all three count frames alike.
//
// Frame-count rule (docs/cli.md, "Session file"): every segment contributes frames_per_segment = F
// frames, sampled at t = j / F, j = 0..F-1 (the segment's start keyframe is included, its end
// keyframe is not: it begins the next segment). With K keyframes:
//   loop:    K segments (the last returns from keyframe K-1 to keyframe 0): N = K * F frames
//            (3 keyframes, 8 frames per segment: 24 frames, docs/cli.md's example). Frame N would be
//            keyframe 0 again, so the animation repeats seamlessly.
//   no loop: K - 1 segments plus the final keyframe itself: N = (K - 1) * F + 1 frames
//            (3 keyframes, F = 8: 17 frames; the last frame is exactly keyframe K-1).
// A single keyframe gives F identical frames with loop and 1 frame without.
// Frame i lies in segment s = i / F at t = (i % F) / F; the segment's easing maps t to e(t), and
// the latent is Slerp::interpolate(k_s, k_{s+1}, e(t)) (the reference SLERP formula) or the linear
// blend (1 - e) k_s + e k_{s+1} (also used by SLERP paths for a segment with an all-zero keyframe,
// which has no direction). Keyframes are exact: frame s * F equals keyframe s bit for bit.
//
// Stateless and thread-safe.
#pragma once

#include <cstdint>

namespace streetgan {

class WalkRule {
public:
    enum class Interpolation { Slerp, Linear };
    /// Truncation psi range (ml/latent/Truncation): 0 = the mean, 1 = unchanged, 2 = exaggerated.
    static constexpr double kMinPsi = 0.0, kMaxPsi = 2.0;

    /// N of the rule above; 0 for no keyframes or F < 1.
    static int64_t frameCount(int64_t keyframes, int framesPerSegment, bool loop) {
        if (keyframes < 1 || framesPerSegment < 1) return 0;
        return loop ? keyframes * framesPerSegment : (keyframes - 1) * framesPerSegment + 1;
    }
};

}  // namespace streetgan
