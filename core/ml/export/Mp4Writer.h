// MP4 video export through FFmpeg's libraries (Debian's libavcodec/libavformat/libswscale).
// Encoder: H.264 through libx264 when this libavcodec has it (Debian's does), otherwise MPEG-4
// part 2 ("mpeg4"); encoderName() says which one write() uses. Pixels: RGB frames converted to
// yuv420p with libswscale (BT.601, limited range, the players' default); width and height must be
// even (yuv420p halves the chroma planes). Timing: one frame every frameDelayMs milliseconds,
// i.e. the time base is frameDelayMs/1000 s and frame i has pts i (fps = 1000 / frameDelayMs).
// Quality: libx264 CRF `crf` (default 18, visually lossless), preset "medium"; mpeg4 at fixed
// quantiser 2. The file is written to a temporary file beside `path`, fsynced and renamed over it:
// on an error or cancellation nothing is left behind and an existing `path` is untouched.
//
// Logging: the first Mp4Writer lowers FFmpeg's process-wide log level to AV_LOG_ERROR (libx264
// would otherwise print its statistics on stderr for every file).
//
// Thread contract: immutable after construction; write() may run concurrently on one instance.
// The progress callback runs on the calling thread after each encoded frame; `cancel` is polled
// before each frame (RenderCancelled).
#pragma once

#include <atomic>
#include <string>

#include <ATen/core/Tensor.h>

#include "ml/export/FrameRenderer.h"

namespace streetgan {

struct Mp4Options {
    int frameDelayMs = 80;  ///< 1..60000
    int crf = 18;           ///< libx264 constant rate factor 0 (lossless) .. 51
    std::string encoder;    ///< "" = automatic (libx264, else mpeg4); or an FFmpeg encoder name
};

class Mp4Writer {
public:
    /// Throws ConfigError for options out of range or an encoder this libavcodec lacks.
    explicit Mp4Writer(Mp4Options options = {});

    /// framesHwc: uint8 (N, H, W, 3) on the CPU, N >= 1, H and W even. Throws DataError for other
    /// frames, IoError naming `path` (or FFmpeg's reason), RenderCancelled.
    void write(const at::Tensor& framesHwc, const std::string& path, const FrameProgress& progress = {}, const std::atomic<bool>* cancel = nullptr) const;

    /// The encoder write() uses: "libx264" or "mpeg4" (or the one named in the options).
    const std::string& encoderName() const { return encoder_; }
    /// The automatic choice on this system.
    static std::string defaultEncoder();

private:
    Mp4Options options_;
    std::string encoder_;
};

}  // namespace streetgan
