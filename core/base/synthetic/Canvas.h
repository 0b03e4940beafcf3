// Internal to SyntheticStreets: the frame being painted, in float RGB, and the small analytic-
// coverage rasteriser that paints into it: convex polygons (exact coverage horizontally, four
// sub-scanlines vertically), ellipses, soft ellipses and height fields, each blended with a Paint.
// Thread contract: one per render() call; its buffers are the calling thread's.
#pragma once

#include <algorithm>
#include <cstddef>

#include "base/synthetic/FacadeTex.h"
#include "base/synthetic/Paint.h"
#include "base/synthetic/SceneMaths.h"

namespace streetgan::synthetic {

struct Canvas {
    int W = 0, H = 0;
    float* px = nullptr;    // W*H*3 linear-ish RGB in [0, 1+]
    float* mask = nullptr;  // W*H shadow mask
    float* cov = nullptr;   // W+2 coverage accumulator for one row
    Col fog{0.5f, 0.5f, 0.5f};
    float fogD = 1000.f;  // distance (m) at which fog reaches 50 %

    float fogAt(float z) const { return z <= 0.f ? 0.f : z / (z + fogD); }

    /// Blends the coverage accumulated in `cov` for pixels [lo, hi] of `row` with `pt`.
    void blendRow(int row, int lo, int hi, const Paint& pt);
    /// The facade texture `t` over pixels [lo, hi] of `row`, starting at `d`.
    void facadeRow(const FacadeTex& t, int row, int lo, int hi, float a0, float* d);

    /// Convex polygon in pixel coordinates (pixel (i, j) covers [i, i+1) x [j, j+1)): exact
    /// coverage along x, kSub sub-scanlines along y.
    void fillConvex(const V2* p, int n, const Paint& pt);

    /// Ellipse as a 16-gon (antialiased through fillConvex).
    void ellipse(float cx, float cy, float rx, float ry, const Paint& pt);

    /// Soft ellipse: alpha falls off as (1 - r^2)^2. Radii under 0.75 px keep their energy.
    void softEllipse(float cx, float cy, float rx, float ry, const Paint& pt);

    /// Fills from a silhouette top(x) (pixels, x increasing across calls) down to yBot.
    template <class TopFn>
    void heightField(TopFn&& top, float yBot, const Paint& pt) {
        const Col s = mixc(pt.c, fog, pt.m);
        for (int x = 0; x < W; ++x) {
            float t[4];
            float tmin = 1e30f;
            for (int k = 0; k < 4; ++k) {
                t[k] = top(static_cast<float>(x) + (static_cast<float>(k) + 0.5f) * 0.25f);
                tmin = std::min(tmin, t[k]);
            }
            if (!(tmin < yBot)) continue;
            const int r0 = std::max(0, ifloor(tmin));
            const int r1 = std::min(H - 1, iceil(yBot) - 1);
            for (int row = r0; row <= r1; ++row) {
                const float fr = static_cast<float>(row);
                float c = clamp01(fr + 1.f - t[0]) + clamp01(fr + 1.f - t[1]) + clamp01(fr + 1.f - t[2]) + clamp01(fr + 1.f - t[3]);
                const float a = c * 0.25f * clamp01(yBot - fr) * pt.alpha;
                if (a <= 0.f) continue;
                float* d = px + (static_cast<size_t>(row) * W + x) * 3;
                d[0] += (s.r - d[0]) * a;
                d[1] += (s.g - d[1]) * a;
                d[2] += (s.b - d[2]) * a;
            }
        }
    }
};

}  // namespace streetgan::synthetic
