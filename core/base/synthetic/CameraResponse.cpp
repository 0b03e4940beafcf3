#include "base/synthetic/CameraResponse.h"

#include <algorithm>

namespace streetgan::synthetic {

namespace {

// Round half up after clamping to [0, 255]. std::lround would differ for a few inputs just below
// n + 0.5 (where v + 0.5f rounds up in float) and change the renderer's bit-identical output.
inline uint8_t toByte(float v) {
    return static_cast<uint8_t>(std::min(std::max(v, 0.f), 255.f) + 0.5f);  // NOLINT(bugprone-incorrect-roundings): see above
}

}  // namespace

void CameraResponse::develop(const SceneParams& P, Canvas& cv, uint8_t* rgbOut) {
    const int width = cv.W, height = cv.H;
    const Col gain = P.wb * (P.exposure * 255.f);
    const float iw = 1.f / static_cast<float>(width), ih = 1.f / static_cast<float>(height);
    const float k = 2.f * P.vignette, sat = P.sat;
    float* colFall = cv.mask;  // the shadow mask is free now: the vignette's fall-off per column
    for (int x = 0; x < width; ++x) colFall[x] = k * sq((static_cast<float>(x) + 0.5f) * iw - 0.5f);
    const float* src = cv.px;
    uint8_t* dst = rgbOut;
    for (int y = 0; y < height; ++y) {
        const float rowVig = 1.f - k * sq((static_cast<float>(y) + 0.5f) * ih - 0.5f);
        for (int x = 0; x < width; ++x, src += 3, dst += 3) {
            const float vig = rowVig - colFall[x];
            const float l = 0.299f * src[0] + 0.587f * src[1] + 0.114f * src[2];
            const float r = (l + (src[0] - l) * sat) * (gain.r * vig);
            const float g = (l + (src[1] - l) * sat) * (gain.g * vig);
            const float b = (l + (src[2] - l) * sat) * (gain.b * vig);
            dst[0] = toByte(r);
            dst[1] = toByte(g);
            dst[2] = toByte(b);
        }
    }
}

}  // namespace streetgan::synthetic
