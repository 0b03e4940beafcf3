// Animated GIF encoding: libimagequant chooses the palette(s) and dithers, giflib writes GIF89a.
//
// Input frames are uint8 RGB, channels last: a CPU tensor (F, H, W, 3) (any strides; F >= 1,
// H and W in 1..65535 after scaling). fromImages() converts generator output (F, 3, H, W) in
// [-1, 1] to that layout. Frames may be scaled to another size: Smooth scales them before
// quantisation (bicubic up, area down); Nearest keeps hard pixel edges and is cheap: the frames are
// quantised (and dithered) at their input size and the index maps are scaled, which is exactly
// scaling first when dithering is 0 (with dithering, the dither pattern is scaled too).
//
// Palettes: Global quantises one histogram over all frames and writes one global colour table
// (smaller files, no palette flicker between frames); PerFrame quantises each frame on its own and
// writes a local colour table per frame (better colours when frames differ a lot).
// Timing: the frame delay is stored in centiseconds (ms / 10, rounded; browsers show delays under
// 20 ms as 100 ms). Looping: the NETSCAPE2.0 application extension with loopCount (0 = forever);
// loopCount < 0 writes no extension (the animation plays once).
//
// Thread contract: a GifWriter is immutable after construction; encode()/write() may run
// concurrently on one instance from several threads. The progress callback runs on the calling
// thread after each frame is quantised; `cancel` is polled between frames (then GifCancelled is
// thrown and nothing is written).
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include <ATen/core/Tensor.h>

#include "base/util/Errors.h"

namespace streetgan {

/// Thrown by GifWriter::encode/write when the cancel flag was raised; nothing was written.
class GifCancelled : public Error {
public:
    using Error::Error;
};

struct GifOptions {
    enum class Palette { Global, PerFrame };
    enum class Resample { Nearest, Smooth };

    Palette palette = Palette::Global;
    double dithering = 1.0;     ///< Floyd-Steinberg level, 0 (none) .. 1 (full)
    int frameDelayMs = 80;      ///< per frame, 0 .. 655350 ms; stored in centiseconds
    int loopCount = 0;          ///< NETSCAPE2.0 loops: 0 = forever, 1..65535, < 0: no extension
    int width = 0, height = 0;  ///< output size in pixels; 0 = the input's (both 0, or both set)
    Resample resample = Resample::Smooth;
    int maxColors = 256;   ///< 2 .. 256 palette entries
    int minQuality = 0;    ///< libimagequant quality range 0 .. 100 (min <= max); a result
    int maxQuality = 100;  ///< below minQuality is an error (DataError)
    int speed = 4;         ///< libimagequant speed 1 (best) .. 10 (fastest)

    /// Throws ConfigError naming the first field out of range.
    void validate() const;
};

/// Progress after each quantised frame: (frames done, frames total).
using GifProgress = std::function<void(int done, int total)>;

class GifWriter {
public:
    /// Validates the options (ConfigError).
    explicit GifWriter(GifOptions options = {});

    const GifOptions& options() const { return options_; }

    /// The GIF file's bytes. Throws DataError for frames of another shape/dtype, GifCancelled when
    /// `cancel` becomes true, IoError if giflib or libimagequant fail.
    std::string encode(const at::Tensor& framesHwc, const GifProgress& progress = {}, const std::atomic<bool>* cancel = nullptr) const;

    /// encode(), written atomically through AtomicFile (temp file, fsync, rename); on failure or
    /// cancellation `path` is left as it was.
    void write(const at::Tensor& framesHwc, const std::string& path, const GifProgress& progress = {}, const std::atomic<bool>* cancel = nullptr) const;

    /// Generator output (F, 3, H, W) (or (3, H, W)) in [-1, 1] -> uint8 (F, H, W, 3) on the CPU:
    /// x -> (x + 1) / 2, then save_image's mul(255).add(0.5).clamp(0, 255) and truncation.
    static at::Tensor fromImages(const at::Tensor& images);

private:
    GifOptions options_;
};

}  // namespace streetgan
