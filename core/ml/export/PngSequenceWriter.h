// A PNG sequence export: DIR/frame_0000.png, frame_0001.png, ... (at least 4 digits, more when
// there are over 10000 frames), RGB, lossless: decoding a file gives back the frame exactly.
// The files are written (each through AtomicFile) into a fresh temporary folder beside DIR
// (".DIR.tmp-XXXXXX"), which is renamed to DIR only when every frame is written; on an error or
// cancellation the temporary folder is removed, so DIR never holds a partial sequence. DIR must
// not exist, or be an empty folder (it is replaced); a non-empty DIR is refused (IoError) before
// anything is written, never merged or overwritten.
//
// Thread contract: stateless functions; the progress callback runs on the calling thread after
// each frame; `cancel` is polled before each frame (RenderCancelled).
#pragma once

#include <atomic>
#include <string>

#include <ATen/core/Tensor.h>

#include "ml/export/FrameRenderer.h"

namespace streetgan {

class PngSequenceWriter {
public:
    /// framesHwc: uint8 (N, H, W, 3) on the CPU, N >= 1. Throws DataError for other frames,
    /// IoError naming the folder, RenderCancelled.
    static void write(const at::Tensor& framesHwc, const std::string& dir, const FrameProgress& progress = {}, const std::atomic<bool>* cancel = nullptr);
    /// Throws IoError when `dir` could not be created or replaced (a non-empty folder or file there,
    /// a parent that is missing or not writable); writes nothing.
    static void checkWritable(const std::string& dir);
    /// "frame_0007.png" for index 7 of `total` frames.
    static std::string fileName(int64_t index, int64_t total);
};

}  // namespace streetgan
