// Internal to SyntheticStreets: the small value types and float helpers every part of the
// renderer uses (colours, 2D/3D points, four-lane floats for sub-scanlines, libm-free floor and
// ceil, a unit circle of exact literals). Several tiny types share this file on purpose: they are
// one vocabulary, and each is a line or two. Only IEEE-exact operations (see SyntheticStreets.h).
// Thread contract: plain values and pure functions.
#pragma once

#include <algorithm>
#include <cstdint>

namespace streetgan::synthetic {

struct Col {
    float r, g, b;
};
inline Col operator+(Col a, Col b) { return {a.r + b.r, a.g + b.g, a.b + b.b}; }
inline Col operator*(Col a, float s) { return {a.r * s, a.g * s, a.b * s}; }
inline Col operator*(Col a, Col b) { return {a.r * b.r, a.g * b.g, a.b * b.b}; }
inline Col mixc(Col a, Col b, float t) { return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t}; }
constexpr Col rgb(int r, int g, int b) { return {r / 255.f, g / 255.f, b / 255.f}; }

struct V2 {
    float x, y;
};
struct V3 {
    float x, y, z;
};
inline V3 lerp3(V3 a, V3 b, float t) { return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t}; }
inline float clamp01(float v) { return v < 0.f ? 0.f : (v > 1.f ? 1.f : v); }
inline float lerpf(float a, float b, float t) { return a + (b - a) * t; }
inline float sq(float v) { return v * v; }
// Four sub-scanlines at once (IEEE per lane, so identical to scalar code).
#if defined(__GNUC__)
typedef float F4 __attribute__((vector_size(16)));
#else
struct F4 {
    float v[4];
    float& operator[](int i) { return v[i]; }
    float operator[](int i) const { return v[i]; }
};
inline F4 operator+(F4 a, F4 b) { return {{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]}}; }
inline F4 operator-(F4 a, F4 b) { return {{a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]}}; }
inline F4 operator*(F4 a, F4 b) { return {{a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]}}; }
#endif
inline F4 splat(float v) { return F4{v, v, v, v}; }
inline F4 vmin(F4 a, F4 b) {
#if defined(__GNUC__) && !defined(__clang__)
    return a < b ? a : b;
#else
    return F4{std::min(a[0], b[0]), std::min(a[1], b[1]), std::min(a[2], b[2]), std::min(a[3], b[3])};
#endif
}
inline F4 vmax(F4 a, F4 b) {
#if defined(__GNUC__) && !defined(__clang__)
    return a > b ? a : b;
#else
    return F4{std::max(a[0], b[0]), std::max(a[1], b[1]), std::max(a[2], b[2]), std::max(a[3], b[3])};
#endif
}
inline float hsum(F4 a) { return (a[0] + a[1]) + (a[2] + a[3]); }
inline float hmin(F4 a) { return std::min(std::min(a[0], a[1]), std::min(a[2], a[3])); }
inline float hmax(F4 a) { return std::max(std::max(a[0], a[1]), std::max(a[2], a[3])); }

// floor/ceil for |v| < 2^31 without a libm call
inline int ifloor(float v) {
    const int i = static_cast<int>(v);
    return i - (v < static_cast<float>(i) ? 1 : 0);
}
inline int iceil(float v) {
    const int i = static_cast<int>(v);
    return i + (v > static_cast<float>(i) ? 1 : 0);
}

// 16 directions on the unit circle (exact literals: no libm).
inline constexpr float kCircle[16][2] = {{1.f, 0.f},  {0.92387953f, 0.38268343f},   {0.70710678f, 0.70710678f},   {0.38268343f, 0.92387953f},
                                         {0.f, 1.f},  {-0.38268343f, 0.92387953f},  {-0.70710678f, 0.70710678f},  {-0.92387953f, 0.38268343f},
                                         {-1.f, 0.f}, {-0.92387953f, -0.38268343f}, {-0.70710678f, -0.70710678f}, {-0.38268343f, -0.92387953f},
                                         {0.f, -1.f}, {0.38268343f, -0.92387953f},  {0.70710678f, -0.70710678f},  {0.92387953f, -0.38268343f}};

}  // namespace streetgan::synthetic
