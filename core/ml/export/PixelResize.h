// Resizing of 8-bit frames for display and export (the explorer, `render`, GIF export): the one
// implementation, in ATen alone, so that a trainer built without OpenCV (the GPU bundle) renders
// what the desktop build renders.
//
// Each filter is OpenCV's, written as one weight matrix per axis (out = Wy · image · Wxᵀ per
// channel, in float32, rounded half up and clamped to 0..255):
// - Nearest = cv::INTER_NEAREST: source index floor(x * (1 / (out / in))), computed in double as
//   OpenCV does, clamped to the last pixel; the results are identical to cv::resize.
// - Cubic = cv::INTER_CUBIC (enlarging): Keys' kernel with a = -0.75 at source position
//   (x + 0.5) * in / out - 0.5, border pixels replicated. OpenCV quantises its weights to 11 bits,
//   so its output differs by at most one level (tests/ml/export/PixelResizeTest.cpp measures it).
// - Area = cv::INTER_AREA (shrinking): each output pixel the mean of the input area it covers,
//   partly covered pixels weighted by their covered fraction. Within one level of cv::resize.
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

    /// The (out, in) float32 matrix that maps one axis of `in` pixels to `out` pixels.
    static at::Tensor axisWeights(int in, int out, Filter filter);
};

}  // namespace streetgan
