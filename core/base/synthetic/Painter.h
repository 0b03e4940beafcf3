// Internal to SyntheticStreets: paints world-space shapes (polygons, axis-aligned rectangles,
// camera-facing ribbons, discs, glows, pools of light on the ground) through the Camera into the
// Canvas, with fog by distance.
// Thread contract: one per render() call (it holds references to that call's canvas and camera).
#pragma once

#include <cstdint>

#include "base/synthetic/Camera.h"
#include "base/synthetic/Canvas.h"
#include "base/synthetic/Paint.h"
#include "base/synthetic/SceneMaths.h"

namespace streetgan::synthetic {

enum class Fog : uint8_t { Const, Plane };

struct Painter {
    Canvas& cv;
    const Camera& cam;

    /// Convex world polygon: culled against the view frustum, clipped at the near plane, projected.
    void poly(const V3* w, int n, Col c, float alpha = 1.f, Fog fm = Fog::Const, Blend blend = Blend::Normal, const Paint* base = nullptr);
    void quad(V3 a, V3 b, V3 c, V3 d, Col col, float alpha = 1.f, Fog fm = Fog::Const, Blend blend = Blend::Normal) {
        const V3 q[4] = {a, b, c, d};
        poly(q, 4, col, alpha, fm, blend);
    }
    // axis-aligned rectangles on the three plane families
    void rectX(float x, float y0, float y1, float z0, float z1, Col c, float alpha = 1.f, Fog fm = Fog::Const) {
        quad({x, y0, z0}, {x, y0, z1}, {x, y1, z1}, {x, y1, z0}, c, alpha, fm);
    }
    void rectZ(float z, float x0, float x1, float y0, float y1, Col c, float alpha = 1.f, Fog fm = Fog::Const) {
        quad({x0, y0, z}, {x1, y0, z}, {x1, y1, z}, {x0, y1, z}, c, alpha, fm);
    }
    void rectY(float y, float x0, float x1, float z0, float z1, Col c, float alpha = 1.f, Fog fm = Fog::Const, Blend blend = Blend::Normal) {
        quad({x0, y, z0}, {x1, y, z0}, {x1, y, z1}, {x0, y, z1}, c, alpha, fm, blend);
    }

    /// A ribbon of world `width` facing the camera from a to b.
    void line(V3 a, V3 b, float width, Col c, float alpha = 1.f, Blend blend = Blend::Normal);

    /// Projected radius in pixels of a sphere of world radius r around c; -1 when it is out of view.
    float screenRadius(V3 c, float r) const;

    /// Screen-facing ellipse of world radii (rx, ry) around `centre`.
    void disc(V3 centre, float rx, float ry, Col c, float alpha = 1.f);
    /// Additive soft glow of world radius `r`.
    void glow(V3 centre, float r, Col c, float intensity);
    /// Additive pool of light of world radius r on the ground around (x, z).
    void groundPool(float x, float z, float r, Col c, float intensity);
};

}  // namespace streetgan::synthetic
