// Resizing of 8-bit frames for display and export (the explorer, `render`, GIF export), frame by
// frame through base/util/ImageResize (the loader's resize too), so that a trainer built without
// OpenCV (the GPU bundle) renders what the desktop build renders.
//
// Each filter is OpenCV's (base/util/ResampleWeights): Nearest identical to cv::resize, Cubic
// (enlarging) and Area (shrinking) within one level of it (tests/ml/export/PixelResizeTest.cpp).
// Smooth = Cubic when neither side shrinks, else Area: what the app's "smooth" upscale means.
//
// Thread contract: stateless; any thread. Inputs may live on any device; results are on the CPU.
#pragma once

#include <ATen/core/Tensor.h>

namespace streetgan {

class PixelResize {
public:
    enum class Filter { Nearest, Cubic, Area, Smooth };

    /// `frames` (N, H, W, C) uint8, channels last, C >= 1 -> (N, outH, outW, C) uint8 on the CPU. The
    /// same size returns a copy. Throws DataError for another shape or dtype, or a size outside
    /// 1..16384.
    static at::Tensor resize(const at::Tensor& frames, int outH, int outW, Filter filter);
};

}  // namespace streetgan
