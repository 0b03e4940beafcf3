// The session file of docs/cli.md ("Session file"): a latent walk that `streetgan-trainer render` and the
// app's explorer both read and write.
//
// Keys (all optional except "keyframes"; defaults in brackets; ranges are checked on read):
//   checkpoint          string: path; a relative path is relative to the session file's folder [""]
//   checkpoint_sha256   string: 64 hex digits of the checkpoint the session was made with, or "" [""]
//   keyframes           1..1000 of {"seed": 0..2^63-1} or {"z": [nz finite numbers, 1..4096]};
//                       either may carry "easing" and "t_range" (of the segment leaving this keyframe)
//   interpolation       "slerp" | "linear" ["slerp"]
//   easing              "linear" | "ease-in-out" | "ease-in" | "ease-out" ["linear"]
//   t_range             [t0, t1]: the interpolation parameter t that each segment's frames spread
//                       over (WalkRule.h), two numbers within -1e6..1e6 [[0, 1]]; outside 0..1 the
//                       walk extrapolates past its keyframes. Written only when it is not [0, 1]
//                       (a keyframe's own only when set), so files without it stay byte-identical.
//   frames_per_segment  1..1000 [8]
//   loop                bool [true]
//   size                output edge in pixels, 8..2048 [128]
//   frame_delay_ms      10..60000 [80]
//   truncation          psi, 0..2 [1.0]
//   directions          [{"index": 0..255, "amount": -100..100}] (PCA directions, LatentPath+Truncation
//                       first, then the edits) [[]]
//   pca_components      directions computed, 1..256 (and <= nz) [10]
//   pca_samples         latents sampled for the PCA, 100..100000 [2000]
//   pca_seed            0..2^63-1 [0]
//   named_directions    [{"name": "night", "z": [nz finite numbers, not all 0], "amount": -100..100}]
//                       (directions learnt from labels, `streetgan-trainer directions`; applied after
//                       the PCA edits: z + amount * z_dir / |z_dir|). Written only when not empty,
//                       so files without it stay byte-identical. [[]]
//   upscale             "nearest" | "smooth" ["nearest"]
//   nrow, padding       PNG grid layout: 1..1024 [8], 0..256 [2]
//   gif_palette         "global" | "per-frame" ["per-frame"]
//   gif_dithering       0..1 [0.0]
//   gif_speed           libimagequant speed 1 (best) .. 10 (fastest) [8]
//                       (these three defaults beat Pillow's GIF writer on PSNR, size and time on
//                       generator walks; see bench/README.md, "Render")
//   gif_loop_count      GIF loops, 0 (forever)..65535 [0] (a walk without "loop" still repeats)
// Frame count: WalkRule's rule (loop: K*F; no loop: (K-1)*F+1); frames * size^2 * 3 bytes
// must stay under 4 GiB. Unknown keys are kept and written back unchanged (the app may write more).
// Numbers are kept as read (doubles), so write(read(x)) reproduces x's values exactly.
//
// Thread contract: a plain value type; no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/latent/DirectionEdit.h"
#include "base/latent/Easing.h"
#include "base/latent/NamedDirectionEdit.h"
#include "base/latent/WalkRule.h"

namespace streetgan {

struct SessionKeyframe {
    std::optional<uint64_t> seed;        ///< LatentSeed::draw(seed, nz) ...
    std::vector<double> z;               ///< ... or an explicit vector (exactly one is set)
    std::optional<Easing::Kind> easing;  ///< easing of the segment that starts here
    /// t range of the segment that starts here (the session's when unset). Initialised so that
    /// {seed, z, easing} aggregates stay warning-free.
    std::optional<WalkRule::TRange> tRange = std::nullopt;
    bool operator==(const SessionKeyframe& o) const { return seed == o.seed && z == o.z && easing == o.easing && tRange == o.tRange; }
};

struct LatentSession {
    std::string checkpoint;
    std::string checkpointSha256;
    std::vector<SessionKeyframe> keyframes;
    WalkRule::Interpolation interpolation = WalkRule::Interpolation::Slerp;
    Easing::Kind easing = Easing::Kind::Linear;
    WalkRule::TRange tRange;  ///< for every segment without its own
    int framesPerSegment = 8;
    bool loop = true;
    int size = 128;
    int frameDelayMs = 80;
    double truncation = 1.0;
    std::vector<DirectionEdit> directions;
    int pcaComponents = 10;
    int64_t pcaSamples = 2000;
    uint64_t pcaSeed = 0;
    std::vector<NamedDirectionEdit> namedDirections;
    enum class Upscale { Nearest, Smooth } upscale = Upscale::Nearest;
    int nrow = 8, padding = 2;
    bool gifPerFramePalette = true;
    double gifDithering = 0.0;
    int gifSpeed = 8;
    int gifLoopCount = 0;
    nlohmann::json extra = nlohmann::json::object();  ///< unknown keys, written back as they were

    /// Throws ConfigError naming the key, the bad value and the allowed values or range.
    static LatentSession fromJson(const nlohmann::json& j);
    nlohmann::json toJson() const;
    /// Reads and validates a file (IoError when unreadable, ConfigError naming the file and key).
    static LatentSession read(const std::string& path);
    /// Writes pretty JSON atomically (AtomicFile); IoError naming the path.
    void write(const std::string& path) const;
    /// Checks every range above (fromJson calls it; callers that edit a session may too).
    void validate() const;

    /// Frames of the walk (WalkRule::frameCount).
    int64_t frameCount() const;
    /// Easing and t range of segment `s` (the keyframe's own, else the session's).
    Easing::Kind segmentEasing(size_t s) const;
    WalkRule::TRange segmentRange(size_t s) const;
    /// Where frame i lies and its t (WalkRule::place and WalkRule::t with this session's segment
    /// settings); ConfigError for a frame outside the walk without loop.
    WalkRule::Place framePlace(int64_t i) const;
    double frameT(int64_t i) const;

    /// The reference project's walk (gen_img_sequence_array of DMW2151/msls-pytorch-dcgan): two
    /// random latents, SLERP with t = torch.linspace(0, 8, 16), no loop. This session becomes it:
    /// keyframes seeds `seedFrom`, `seedTo`, SLERP, linear easing, t range [0, kReferenceTEnd],
    /// kReferenceFrames frames (frames_per_segment kReferenceFrames - 1), no loop, truncation 1 and
    /// no direction edits (PCA or named) (the reference has neither); checkpoint and output settings are kept.
    static constexpr double kReferenceTEnd = 8.0;
    static constexpr int kReferenceFrames = 16;
    void makeReferenceWalk(uint64_t seedFrom, uint64_t seedTo);
    /// The checkpoint path: `override` if non-empty, else `checkpoint` resolved against the folder
    /// of `sessionPath`. ConfigError when both are empty.
    std::string resolveCheckpoint(const std::string& sessionPath, const std::string& override = "") const;
    /// An empty string when checkpoint_sha256 is empty or equals `actualSha256`; otherwise one line
    /// saying that the session was made with another checkpoint (the caller warns and continues).
    std::string hashWarning(const std::string& checkpointPath, const std::string& actualSha256) const;

    // The session's tensors (keyframe latents, the path, the generator input) are computed by
    // ml/latent/SessionLatents: this type stays free of LibTorch so the app can use it.

    bool operator==(const LatentSession& o) const { return toJson() == o.toJson(); }
};

}  // namespace streetgan
