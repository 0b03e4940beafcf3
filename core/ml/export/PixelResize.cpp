#include "ml/export/PixelResize.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/util/ShapeText.h"

namespace streetgan {

namespace {

constexpr int kMaxSide = 16384;

// Keys' cubic convolution kernel with OpenCV's a = -0.75.
double cubic(double x) {
    constexpr double a = -0.75;
    x = std::abs(x);
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

}  // namespace

at::Tensor PixelResize::axisWeights(int in, int out, Filter filter) {
    if (in < 1 || out < 1 || in > kMaxSide || out > kMaxSide)
        throw DataError("resize: sizes must be within 1.." + std::to_string(kMaxSide) + " (got " + std::to_string(in) + " -> " + std::to_string(out) + ")");
    if (filter == Filter::Smooth) filter = out >= in ? Filter::Cubic : Filter::Area;
    std::vector<float> w(static_cast<size_t>(out) * static_cast<size_t>(in), 0.f);
    auto at = [&](int o, int i) -> float& { return w[static_cast<size_t>(o) * static_cast<size_t>(in) + static_cast<size_t>(i)]; };
    const double scale = static_cast<double>(in) / out;
    for (int o = 0; o < out; ++o) {
        switch (filter) {
            case Filter::Nearest: {
                // OpenCV's resizeNN: ifx = 1 / fx in double, then floor(x * ifx).
                const double ifx = 1.0 / (static_cast<double>(out) / in);
                at(o, std::min(static_cast<int>(std::floor(o * ifx)), in - 1)) = 1.f;
                break;
            }
            case Filter::Cubic: {
                const double src = (o + 0.5) * scale - 0.5;
                const int base = static_cast<int>(std::floor(src));
                for (int k = -1; k <= 2; ++k) {
                    const int i = std::clamp(base + k, 0, in - 1);  // replicated border
                    at(o, i) += static_cast<float>(cubic(src - (base + k)));
                }
                break;
            }
            case Filter::Area:
            case Filter::Smooth: {
                // The input interval [o * scale, (o + 1) * scale) averaged; an enlargement (scale < 1)
                // covers part of one or two pixels, which this also weights by overlap.
                const double from = o * scale, to = (o + 1) * scale;
                for (int i = static_cast<int>(std::floor(from)); i < std::min(in, static_cast<int>(std::ceil(to))); ++i) {
                    const double overlap = std::min<double>(to, i + 1) - std::max<double>(from, i);
                    if (overlap > 0) at(o, i) += static_cast<float>(overlap / scale);
                }
                break;
            }
        }
    }
    return at::from_blob(w.data(), {out, in}, at::kFloat).clone();
}

at::Tensor PixelResize::resize(const at::Tensor& frames, int outH, int outW, Filter filter) {
    if (!frames.defined() || frames.dim() != 4 || frames.size(3) < 1 || frames.scalar_type() != at::kByte)
        throw DataError("resize: expected uint8 frames (N, H, W, C), got " + (frames.defined() ? shapeText(frames) : std::string("an undefined tensor")));
    const int64_t n = frames.size(0), h = frames.size(1), w = frames.size(2), c = frames.size(3);
    at::Tensor src = frames.to(at::kCPU).contiguous();
    if (h == outH && w == outW) return src.clone();
    if (h > kMaxSide || w > kMaxSide) throw DataError("resize: frames of " + shapeText(frames) + " are too large");
    const at::Tensor wy = axisWeights(static_cast<int>(h), outH, filter);
    const at::Tensor wx = axisWeights(static_cast<int>(w), outW, filter);
    // (N, H, W, C) -> (N, C, H, W) float; Wy · image · Wxᵀ for every (N, C) plane at once.
    const at::Tensor planes = src.permute({0, 3, 1, 2}).to(at::kFloat);
    const at::Tensor out = at::matmul(at::matmul(wy, planes), wx.t());
    // Round half up like OpenCV's saturate_cast of a non-negative sum; clamp what ringing overshoots.
    return out.add_(0.5f).floor_().clamp_(0, 255).to(at::kByte).permute({0, 2, 3, 1}).contiguous();
}

}  // namespace streetgan
