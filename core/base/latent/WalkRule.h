// The shape of a latent walk, shared by the session file (LatentSession), the app's explorer and the
// tensor path (ml/latent/LatentPath) so that all three count frames and place them alike.
//
// Frame-count rule (docs/cli.md, "Session file"): every segment contributes frames_per_segment = F
// frames, at the fractions u = j / F, j = 0..F-1 of the segment (its start is included, its end
// is not: it begins the next segment). With K keyframes:
//   loop:    K segments (the last returns from keyframe K-1 to keyframe 0): N = K * F frames
//            (3 keyframes, 8 frames per segment: 24 frames, docs/cli.md's example). Frame N would be
//            frame 0 again, so the animation repeats seamlessly (at the default t range).
//   no loop: K - 1 segments plus one final frame, the end (u = 1) of the last segment:
//            N = (K - 1) * F + 1 frames (3 keyframes, F = 8: 17 frames).
// A single keyframe gives F identical frames with loop and 1 frame without.
// Frame i lies in segment s = i / F (keyframe s to keyframe (s + 1) mod K) at u = (i % F) / F
// (place()). The segment's easing e and t range [t0, t1] give the interpolation parameter
//   t = t0 + (t1 - t0) * e(u)                                                    (t())
// and the latent is Slerp::interpolate(k_s, k_{s+1}, t) (the reference SLERP formula) or the
// linear blend (1 - t) k_s + t k_{s+1} (also used by SLERP paths for a segment with an all-zero
// keyframe, which has no direction). t outside [0, 1] extrapolates: SLERP goes on round the great
// circle through both keyframes, linear along their line.
// The t range defaults to [0, 1]: the segment runs from its keyframe to the next, and keyframes are
// exact (a frame at t = 0 or t = 1 is that keyframe bit for bit; e(0) = 0 and e(1) = 1, so frame
// s * F is keyframe s, and without loop the last frame is keyframe K-1). Any other range spreads
// the segment's frames over [t0, t1] instead (t1 < t0 walks backwards, t0 = t1 holds one latent):
// the reference project's walk (gen_img_sequence_array) is two keyframes, no loop, F = 15 and the
// range [0, 8]: 16 frames at t = 8 j / 15, its torch.linspace(0, 8, 16).
//
// Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "base/latent/Easing.h"

namespace streetgan {

class WalkRule {
public:
    enum class Interpolation { Slerp, Linear };
    /// Truncation psi range (ml/latent/Truncation): 0 = the mean, 1 = unchanged, 2 = exaggerated.
    static constexpr double kMinPsi = 0.0, kMaxPsi = 2.0;
    /// Bound of |t0| and |t1|. Any useful walk stays far inside it (t = 8 already goes round the
    /// circle about twice for random keyframes); it keeps every latent a finite float32 (a linear
    /// walk's latents grow with t).
    static constexpr double kMaxAbsT = 1e6;

    /// The range of t that a segment's frames spread over.
    struct TRange {
        double start = 0.0, end = 1.0;
        bool isDefault() const { return start == 0.0 && end == 1.0; }
        bool operator==(const TRange& o) const { return start == o.start && end == o.end; }
        bool operator!=(const TRange& o) const { return !(*this == o); }
    };

    /// Where a frame lies: segment `segment`, from keyframe `from` to keyframe `to`, at fraction u.
    struct Place {
        int64_t segment = 0, from = 0, to = 0;
        double u = 0;  ///< j / F in [0, 1); 1 only for the last frame of a walk without loop
    };

    /// N of the rule above; 0 for no keyframes or F < 1.
    static int64_t frameCount(int64_t keyframes, int framesPerSegment, bool loop) {
        if (keyframes < 1 || framesPerSegment < 1) return 0;
        return loop ? keyframes * framesPerSegment : (keyframes - 1) * framesPerSegment + 1;
    }

    /// The place of frame `frame`. With loop any frame is taken modulo N; without loop it must be
    /// within 0..N-1. ConfigError for a frame outside, no keyframes or F < 1.
    static Place place(int64_t frame, int64_t keyframes, int framesPerSegment, bool loop);

    /// t at fraction u of a segment with `easing` and `range`: t0 + (t1 - t0) * e(u) (exactly e(u)
    /// for the default range).
    static double t(double u, Easing::Kind easing, const TRange& range) { return range.start + (range.end - range.start) * Easing::apply(easing, u); }

    /// ConfigError "session key '<key>' ..." unless both ends are finite and within +-kMaxAbsT.
    static void checkRange(const TRange& range, const std::string& key);
};

}  // namespace streetgan
