// Internal to SyntheticStreets: a street facade's grid of windows as a texture that the Canvas
// evaluates per pixel over the pixel's footprint (box filter), so windows are antialiased at any
// distance and average out when smaller than a pixel; with the window colours it draws from.
// Thread contract: a plain value; the functions are pure.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "base/synthetic/Rng.h"
#include "base/synthetic/SceneMaths.h"
#include "base/synthetic/SyntheticStreets.h"

namespace streetgan::synthetic {

using TimeOfDay = SyntheticStreets::TimeOfDay;

/// Integral of a pulse train (pulses [o + k P, o + k P + d) for o <= t < end) from o to t.
inline float pulseIntegral(float t, float o, float invP, float P, float d, float end) {
    t = std::min(std::max(t, o), end);
    const int k = ifloor((t - o) * invP);
    const float r = t - o - static_cast<float>(k) * P;
    return static_cast<float>(k) * d + std::min(std::max(r, 0.f), d);
}

/// Colour of one window (hash h): glass by day, lit or dark at dusk and night.
inline Col windowColourFor(Col glass, TimeOfDay tod, float litP, uint64_t h) {
    const float u = hashUnit(h);
    if (tod != TimeOfDay::Day && u < litP) {
        const float v = hashUnit(fmix(h));
        const Col warm = v < 0.7f ? rgb(255, 205, 130) : rgb(200, 220, 255);
        return warm * (tod == TimeOfDay::Night ? 0.75f + 0.25f * v : 0.6f);
    }
    const float v = 0.75f + 0.5f * hashUnit(fmix(h ^ 0x1234ull));
    return tod == TimeOfDay::Night ? glass * (0.15f * v) : glass * v;
}
/// The mean of windowColourFor over many windows.
inline Col windowAverageFor(Col glass, TimeOfDay tod, float litP) {
    if (tod == TimeOfDay::Day) return glass;
    const Col litc = rgb(255, 205, 130) * 0.7f + rgb(200, 220, 255) * 0.3f;
    const bool night = tod == TimeOfDay::Night;
    return mixc(night ? glass * 0.15f : glass, litc * (night ? 0.87f : 0.6f), litP);
}

/// A street facade (vertical plane X = const) with a grid of windows, evaluated per pixel over
/// the pixel's footprint on the facade (box filter): antialiased at any distance, and the
/// average colour when windows are smaller than a pixel.
struct FacadeTex {
    float dx, f, cy, sy, W, H, h, v0;  // camera mapping of the plane
    float zLo, zHi;                    // facade extent along the street
    float oz, pz, ipz, wz, zEnd;       // window columns: [oz + k pz, + wz) up to zEnd
    float oy, py, ipy, wy, yEnd;       // window rows
    Col wall, glass, winAvg;
    TimeOfDay tod;
    float litP;
    uint64_t seed;
    /// World Z on the facade seen at pixel column px (its left edge), and the camera depth there.
    void at(float px, float& Z, float& zc) const {
        const float u = px / W - 0.5f;
        const float den = u * cy + f * sy;
        if (den * dx <= 1e-6f * std::fabs(dx)) {  // at or beyond the vanishing line
            Z = zHi;
            zc = 1e6f;
            return;
        }
        const float inv = 1.f / den;
        Z = std::min(std::max(dx * (f * cy - u * sy) * inv, zLo), zHi);
        zc = dx * f * inv;
    }
};

}  // namespace streetgan::synthetic
