// Resizing of 8-bit interleaved images on the CPU without OpenCV: the loader's crop-and-resize
// (Augmentation on photos, PackedCacheWriter's bands), in every build, the GPU bundle's included.
// Separable: each row is filtered along x into a float buffer, then the columns along y, with the
// weights of ResampleWeights (OpenCV's filters); results are rounded half to even and clamped
// to 0..255. At integer shrink factors (a 256 px crop to 64) the result equals cv::resize INTER_AREA;
// otherwise it is within one level of it.
//
// Thread contract: stateless; any number of threads at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/util/ResampleWeights.h"

namespace streetgan {

class ImageResize {
public:
    /// `src`: sh rows of sw pixels of `channels` bytes, rows `srcStride` bytes apart; `dst`: dh
    /// packed rows of dw pixels. Throws DataError for sizes outside 1..ResampleWeights::kMaxSide.
    static void resize(const uint8_t* src, int sw, int sh, size_t srcStride, int channels, uint8_t* dst, int dw, int dh, ResampleWeights::Filter filter);

    /// The loader's crop: the window [x0, x0 + cw) x [y0, y0 + ch) of an RGB image of w x h pixels
    /// (black where the window leaves the image), made dw x dh: copied at the same size, Area when
    /// it shrinks (ch > dh), Linear when it grows.
    static void cropRgb(const uint8_t* rgb, int w, int h, int x0, int y0, int cw, int ch, uint8_t* dst, int dw, int dh);
};

}  // namespace streetgan
