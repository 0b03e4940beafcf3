#include "base/util/ImageResize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace streetgan {

void ImageResize::resize(const uint8_t* src, int sw, int sh, size_t srcStride, int channels, uint8_t* dst, int dw, int dh, ResampleWeights::Filter filter) {
    const ResampleWeights::Axis ax = ResampleWeights::axis(sw, dw, filter);
    const ResampleWeights::Axis ay = ResampleWeights::axis(sh, dh, filter);
    const auto C = static_cast<size_t>(channels);
    const size_t rowFloats = static_cast<size_t>(dw) * C;
    // Along x, every source row a y-tap reaches.
    std::vector<float> rows(static_cast<size_t>(sh) * rowFloats, 0.f);
    for (int y = 0; y < sh; ++y) {
        const uint8_t* in = src + static_cast<size_t>(y) * srcStride;
        float* out = rows.data() + static_cast<size_t>(y) * rowFloats;
        for (int x = 0; x < dw; ++x) {
            const float* w = ax.weights.data() + static_cast<size_t>(x) * static_cast<size_t>(ax.taps);
            const uint8_t* p = in + static_cast<size_t>(ax.first[static_cast<size_t>(x)]) * C;
            for (size_t c = 0; c < C; ++c) {
                float s = 0.f;
                for (int k = 0; k < ax.taps; ++k) s += w[k] * static_cast<float>(p[static_cast<size_t>(k) * C + c]);
                out[static_cast<size_t>(x) * C + c] = s;
            }
        }
    }
    // Along y, rounded half to even and clamped: OpenCV's saturate_cast of a float (cvRound), so an
    // integer shrink (a block mean of exact halves) rounds as cv::resize INTER_AREA does.
    std::vector<float> acc(rowFloats);
    for (int y = 0; y < dh; ++y) {
        std::fill(acc.begin(), acc.end(), 0.f);
        const float* w = ay.weights.data() + static_cast<size_t>(y) * static_cast<size_t>(ay.taps);
        for (int k = 0; k < ay.taps; ++k) {
            if (w[k] == 0.f) continue;
            const float* r = rows.data() + static_cast<size_t>(ay.first[static_cast<size_t>(y)] + k) * rowFloats;
            for (size_t i = 0; i < rowFloats; ++i) acc[i] += w[k] * r[i];
        }
        uint8_t* out = dst + static_cast<size_t>(y) * rowFloats;
        for (size_t i = 0; i < rowFloats; ++i) out[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(acc[i]), 0.f, 255.f));
    }
}

void ImageResize::cropRgb(const uint8_t* rgb, int w, int h, int x0, int y0, int cw, int ch, uint8_t* dst, int dw, int dh) {
    const size_t stride = static_cast<size_t>(w) * 3;
    const uint8_t* window = nullptr;
    size_t windowStride = stride;
    std::vector<uint8_t> filled;
    if (x0 >= 0 && y0 >= 0 && x0 + cw <= w && y0 + ch <= h) {
        window = rgb + static_cast<size_t>(y0) * stride + static_cast<size_t>(x0) * 3;  // a view, no copy
    } else {
        // Black where the window leaves the image (the augmentation's shift uncovers the frame).
        windowStride = static_cast<size_t>(cw) * 3;
        filled.assign(windowStride * static_cast<size_t>(ch), 0);
        const int vx0 = std::max(x0, 0), vx1 = std::min(x0 + cw, w);
        for (int y = std::max(y0, 0); y < std::min(y0 + ch, h) && vx1 > vx0; ++y)
            std::memcpy(filled.data() + static_cast<size_t>(y - y0) * windowStride + static_cast<size_t>(vx0 - x0) * 3,
                        rgb + static_cast<size_t>(y) * stride + static_cast<size_t>(vx0) * 3, static_cast<size_t>(vx1 - vx0) * 3);
        window = filled.data();
    }
    if (cw == dw && ch == dh) {
        for (int y = 0; y < dh; ++y)
            std::memcpy(dst + static_cast<size_t>(y) * dw * 3, window + static_cast<size_t>(y) * windowStride, static_cast<size_t>(dw) * 3);
        return;
    }
    resize(window, cw, ch, windowStride, 3, dst, dw, dh, ch > dh ? ResampleWeights::Filter::Area : ResampleWeights::Filter::Linear);
}

}  // namespace streetgan
