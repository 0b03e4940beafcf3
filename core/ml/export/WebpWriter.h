// Animated WebP export through libwebp's WebPAnimEncoder (libwebpmux). Input: the frames every
// writer gets, uint8 RGB channels last, a CPU tensor (N, H, W, 3), N >= 1, H and W in 1..16383
// (WebP's largest edge). Compression: lossy (VP8) at `quality` 0..100 by default, or lossless (VP8L,
// where `quality` is the effort: larger is smaller and slower); `method` 0 (fast) .. 6 (smallest).
// The encoder stores each frame as the rectangle that changed since the previous one; identical
// consecutive frames become one frame shown for their summed time (libwebp does this), so a
// decoder can see fewer frames than were given but the same playing time.
// Timing: every frame shows for frameDelayMs milliseconds (WebP stores milliseconds, no rounding).
// Looping: the ANIM chunk's loop count, 0 = forever, n = the animation plays n times.
// The file is written atomically (AtomicFile: a temporary file beside `path`, fsync, rename): on an
// error or cancellation nothing is left behind and an existing `path` is untouched.
//
// Thread contract: immutable after construction; encode()/write() may run concurrently on one
// instance. The progress callback runs on the calling thread after each encoded frame; `cancel` is
// polled before each frame and before the file is assembled (RenderCancelled).
#pragma once

#include <atomic>
#include <string>

#include <ATen/core/Tensor.h>

#include "ml/export/FrameRenderer.h"

namespace streetgan {

struct WebpOptions {
    int frameDelayMs = 80;  ///< per frame, 1 .. 16777215 ms (WebP's 24-bit duration)
    int loopCount = 0;      ///< 0 = forever, 1 .. 65535 plays
    bool lossless = false;  ///< VP8L (exact pixels) instead of lossy VP8
    int quality = 90;       ///< 0 .. 100: lossy, the visual quality; lossless, the effort
    int method = 4;         ///< 0 (fastest) .. 6 (smallest file, slowest)

    /// Throws ConfigError naming the first field out of range.
    void validate() const;
};

class WebpWriter {
public:
    /// Validates the options (ConfigError).
    explicit WebpWriter(WebpOptions options = {});

    const WebpOptions& options() const { return options_; }

    /// The .webp file's bytes. Throws DataError for frames of another shape, type or size,
    /// RenderCancelled when `cancel` becomes true, IoError when libwebp fails.
    std::string encode(const at::Tensor& framesHwc, const FrameProgress& progress = {}, const std::atomic<bool>* cancel = nullptr) const;

    /// encode(), written atomically to `path`. IoError (naming `path` and what to do) when its folder
    /// is missing or cannot be written; on any failure or cancellation `path` is left as it was.
    void write(const at::Tensor& framesHwc, const std::string& path, const FrameProgress& progress = {}, const std::atomic<bool>* cancel = nullptr) const;

private:
    WebpOptions options_;
};

}  // namespace streetgan
