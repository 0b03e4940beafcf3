// Internal to SyntheticStreets: the pinhole camera of a scene (position across the street, height,
// focal length, horizon row, yaw, mirroring for left-hand traffic) that maps world metres (X right,
// Y up, Z along the street) to camera space and pixels.
// Thread contract: a plain value.
#pragma once

#include "base/synthetic/SceneMaths.h"

namespace streetgan::synthetic {

constexpr float kNear = 0.25f;  // near clipping plane, metres

struct Camera {
    float camX, h, f, v0, cyaw, syaw, mirror, W, H, pxScale;
    float worldX() const { return camX * mirror; }
    V3 toCam(V3 p) const {
        const float dx = p.x * mirror - camX;
        return {cyaw * dx - syaw * p.z, p.y - h, syaw * dx + cyaw * p.z};
    }
    V2 project(V3 c) const {
        const float iz = 1.f / c.z;
        return {(0.5f + f * c.x * iz) * W, (v0 - f * c.y * iz) * H};
    }
};

}  // namespace streetgan::synthetic
