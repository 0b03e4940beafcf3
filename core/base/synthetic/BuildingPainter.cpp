#include "base/synthetic/BuildingPainter.h"

#include <algorithm>
#include <cmath>

#include "base/synthetic/Rng.h"

namespace streetgan::synthetic {

void BuildingPainter::draw(const Building& b) {
    const float s = static_cast<float>(b.side);
    const float xo = b.x + s * b.depth;  // back of the building
    const Col wall = facing(b.wall, -s);
    // end face towards the camera (with a gable when pitched)
    if (b.z0 > 0.f) {
        if (b.gable) {
            const V3 q[5] = {{b.x, 0.f, b.z0}, {xo, 0.f, b.z0}, {xo, b.H, b.z0}, {0.5f * (b.x + xo), b.H + b.roofH, b.z0}, {b.x, b.H, b.z0}};
            pa_.poly(q, 5, front(b.wall), 1.f, Fog::Plane);
        } else {
            pa_.rectZ(b.z0, std::min(b.x, xo), std::max(b.x, xo), 0.f, b.H, front(b.wall) * 0.95f, 1.f, Fog::Plane);
        }
    }
    // roof slope facing the street (only when seen from below it: otherwise hidden behind the ridge)
    if (b.gable) {
        const float xr = 0.5f * (b.x + xo);
        // plane through the eave (x, H) and the ridge (xr, H + roofH); visible if the camera is on its outer side
        const float camX = cam_.worldX();
        const float nx = -s * b.roofH, ny = std::fabs(xr - b.x);
        const float side = nx * (camX - b.x) + ny * (P_.camH - b.H);
        if (side > 0.f) {
            const V3 q[4] = {{b.x - s * 0.3f, b.H - 0.15f, b.z0 - 0.3f},
                             {b.x - s * 0.3f, b.H - 0.15f, b.z1 + 0.3f},
                             {xr, b.H + b.roofH, b.z1 + 0.3f},
                             {xr, b.H + b.roofH, b.z0 - 0.3f}};
            pa_.poly(q, 4, shade(b.roof, {-s * 0.6f, 0.8f, 0.f}), 1.f, Fog::Plane);
        }
    }
    // street facade with its windows
    FacadeTex t{};
    facadeTexture(b, wall, t);
    Paint tp;
    tp.tex = &t;
    const V3 q[4] = {{b.x, 0.f, b.z0}, {b.x, 0.f, b.z1}, {b.x, b.H, b.z1}, {b.x, b.H, b.z0}};
    pa_.poly(q, 4, wall, 1.f, Fog::Const, Blend::Normal, &tp);
    drawShopFront(b);
    if (b.gable) {  // eave line
        pa_.rectX(b.x - s * 0.3f, b.H - 0.3f, b.H, b.z0 - 0.3f, b.z1 + 0.3f, shade(b.roof, {-s, 0.f, 0.f}) * 0.7f, 1.f, Fog::Plane);
    } else {  // cornice
        pa_.rectX(b.x - s * 0.02f, b.H - 0.5f, b.H, b.z0, b.z1, wall * 0.8f, 1.f, Fog::Plane);
    }
    if (b.gable && b.fence) {  // hedge or fence along the lot front
        const float fx = P_.streetEdge(b.side) + s * 0.3f;
        pa_.rectX(fx, 0.f, 1.0f, b.z0 - 2.f, b.z1 + 2.f, facing(b.fenceCol, -s), 1.f, Fog::Plane);
    }
}

void BuildingPainter::facadeTexture(const Building& b, Col wall, FacadeTex& t) const {
    const float s = static_cast<float>(b.side);
    t.dx = b.x * cam_.mirror - cam_.camX;
    t.f = cam_.f;
    t.cy = cam_.cyaw;
    t.sy = cam_.syaw;
    t.W = cam_.W;
    t.H = cam_.H;
    t.h = cam_.h;
    t.v0 = cam_.v0;
    t.zLo = b.z0;
    t.zHi = b.z1;
    const float len = b.z1 - b.z0;
    const int cols = std::max(0, static_cast<int>((len - 0.6f) / b.spacing));
    const float margin = 0.5f * (len - static_cast<float>(cols) * b.spacing);
    t.pz = b.spacing;
    t.ipz = 1.f / b.spacing;
    t.wz = b.winW;
    t.oz = b.z0 + margin + 0.5f * (b.spacing - b.winW);
    t.zEnd = t.oz + static_cast<float>(cols) * b.spacing;
    const float top = b.H - (b.gable ? 0.4f : 0.9f);
    const bool shop = !b.gable && b.shopFront;
    const float y0 = shop ? b.groundH : 0.f;
    const int floors = std::max(0, static_cast<int>((top - y0) / b.floorH));
    t.py = b.floorH;
    t.ipy = 1.f / b.floorH;
    t.wy = b.winH;
    t.oy = y0 + (b.gable ? 0.9f : 0.8f);
    t.yEnd = t.oy + static_cast<float>(floors) * b.floorH;
    t.wall = wall;
    t.glass = night() ? b.win : mixc(b.win, facing(b.win, -s), 0.5f);
    t.tod = P_.tod;
    t.litP = P_.litP;
    t.winAvg = windowAverageFor(t.glass, t.tod, t.litP);
    t.seed = b.seed;
}

void BuildingPainter::drawShopFront(const Building& b) {
    const float s = static_cast<float>(b.side);
    const float x = b.x - s * 0.02f;
    const bool groundWindows = b.gable || !b.shopFront;
    // shop front: glass band, sign band, sometimes an awning
    if (!groundWindows) {
        const float z0 = b.z0 + 0.6f, z1 = b.z1 - 0.6f;
        Col glass = night() ? (hashUnit(b.seed) < 0.6f ? rgb(255, 220, 160) * 0.8f : b.win * 0.2f) : b.win * 0.8f;
        pa_.rectX(x, 0.3f, b.groundH - 1.2f, z0, z1, glass, 1.f, Fog::Plane);
        pa_.rectX(x - s * 0.01f, b.groundH - 1.0f, b.groundH - 0.35f, z0, z1, facing(b.sign, -s), 1.f, Fog::Plane);
        if (hashUnit(fmix(b.seed)) < 0.3f) {
            const float ax = x - s * 1.3f;
            const V3 q[4] = {{x, b.groundH - 1.1f, z0}, {x, b.groundH - 1.1f, z1}, {ax, b.groundH - 1.8f, z1}, {ax, b.groundH - 1.8f, z0}};
            pa_.poly(q, 4, shade(b.shop, {-s * 0.5f, -0.5f, 0.f}), 1.f, Fog::Plane);
        }
    }
}

}  // namespace streetgan::synthetic
