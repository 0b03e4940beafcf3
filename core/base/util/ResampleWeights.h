// The per-axis weights of the image resampling filters, the one place that defines them: the
// loader's crop-and-resize (ImageResize: photos and packed caches) and the export's frame resize
// (ml/export/PixelResize) both take their weights from here.
//
// Each filter is OpenCV's (cv::resize), written as weights over the input pixels of one axis:
// - Nearest = INTER_NEAREST: source index floor(x * (1 / (out / in))), in double as OpenCV
//   computes it, clamped to the last pixel.
// - Linear = INTER_LINEAR: source position (x + 0.5) * in / out - 0.5, clamped at both borders.
// - Cubic = INTER_CUBIC: Keys' kernel with a = -0.75 at the same position, borders replicated.
// - Area = INTER_AREA: the input interval [x * in / out, (x + 1) * in / out) averaged, partly
//   covered pixels weighted by the covered fraction (for an integer factor: the plain block mean).
// OpenCV quantises Linear and Cubic weights to 11 bits; results built on these weights in float
// are within one level of cv::resize, and equal to it for Nearest and for Area at integer factors.
//
// Thread contract: stateless; any thread.
#pragma once

#include <vector>

namespace streetgan {

class ResampleWeights {
public:
    enum class Filter { Nearest, Linear, Cubic, Area };

    /// Output pixel o reads inputs first[o] .. first[o] + taps - 1 with weights[o * taps + k]
    /// (zero where the filter is narrower than `taps`); first[o] + taps <= in always holds.
    struct Axis {
        int in = 0;
        int out = 0;
        int taps = 0;
        std::vector<int> first;
        std::vector<float> weights;
    };

    /// Largest side either way; larger sizes throw DataError.
    static constexpr int kMaxSide = 16384;

    /// The weights that map `in` pixels of one axis to `out`. Throws DataError for a size outside
    /// 1..kMaxSide.
    static Axis axis(int in, int out, Filter filter);
};

}  // namespace streetgan
