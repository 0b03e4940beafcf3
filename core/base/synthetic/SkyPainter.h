// Internal to SyntheticStreets: the sky (gradient, sun at dusk, moon at night, clouds) and the
// backdrop at the horizon (distant hills, a far city skyline, a tree line).
// Thread contract: one per render() call.
#pragma once

#include "base/synthetic/Paint.h"
#include "base/synthetic/SceneContext.h"

namespace streetgan::synthetic {

class SkyPainter : public SceneContext {
public:
    explicit SkyPainter(const SceneContext& sc) : SceneContext(sc) {}

    void drawSky();
    void drawBackdrop();

private:
    /// Normalised u of a direction of azimuth tangent a (for things at infinity).
    float azimuthToU(float a) const { return 0.5f + P_.f * (a - P_.tanYaw) / (1.f + a * P_.tanYaw); }
    float uToAzimuth(float u) const {
        const float q = (u - 0.5f) / P_.f;
        return (q + P_.tanYaw) / (1.f - q * P_.tanYaw);
    }

    /// Silhouette from knots (azimuth tangent -> elevation tangent above `baseY`), down to `bottomY`.
    void heightField(const float* ka, const float* kh, int n, bool step, float baseY, float bottomY, const Paint& pt);
};

}  // namespace streetgan::synthetic
