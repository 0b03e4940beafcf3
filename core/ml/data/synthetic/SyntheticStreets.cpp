// Procedural street scenes: scene description in world metres, a pinhole camera, and a small
// analytic-coverage rasteriser (convex polygons, soft ellipses, height fields) into a float frame.
#include "ml/data/SyntheticStreets.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/util/Errors.h"

// Bit-identical results need the same rounding everywhere: no fused multiply-add contraction.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace streetgan {
namespace {

// ------------------------------------------------------------------------------------ maths

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

// ------------------------------------------------------------------------------------ random

inline uint64_t fmix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
inline uint64_t hashPair(uint64_t a, uint64_t b) { return fmix(fmix(a) ^ (b * 0xC2B2AE3D27D4EB4Full)); }
inline float hashUnit(uint64_t h) { return static_cast<float>(h >> 40) * (1.f / 16777216.f); }

/// splitmix64: tiny, full period, and identical on every platform (unlike <random> distributions).
class Rng {
public:
    explicit Rng(uint64_t seed) : s_(seed) {}
    uint64_t next() {
        uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    float uni() { return hashUnit(next()); }  // [0, 1)
    float range(float a, float b) { return a + (b - a) * uni(); }
    int irange(int lo, int hi) { return lo + static_cast<int>((next() >> 33) % static_cast<uint64_t>(hi - lo + 1)); }
    bool chance(float p) { return uni() < p; }
    Col jitter(Col c, float amount) {
        const float k = range(1.f - amount, 1.f + amount);
        return {c.r * k * range(1.f - amount * 0.5f, 1.f + amount * 0.5f), c.g * k,
                c.b * k * range(1.f - amount * 0.5f, 1.f + amount * 0.5f)};
    }
    template <size_t N>
    Col pick(const Col (&palette)[N]) {
        return palette[irange(0, static_cast<int>(N) - 1)];
    }

private:
    uint64_t s_;
};

// Independent streams per part of the scene so that one part's draws never shift another's.
enum Stream : uint64_t { kParams = 1, kSky, kBackdrop, kRoad, kBuildLeft, kBuildRight, kProps, kTraffic };

using TimeOfDay = SyntheticStreets::TimeOfDay;
using Weather = SyntheticStreets::Weather;
using Season = SyntheticStreets::Season;
using Layout = SyntheticStreets::Layout;

// ------------------------------------------------------------------------------------ canvas

constexpr int kSub = 4;         // sub-scanlines per pixel row
constexpr float kNear = 0.25f;  // near clipping plane, metres

enum class Blend : uint8_t { Normal, Add, Shadow };

/// Integral of a pulse train (pulses [o + k P, o + k P + d) for o <= t < end) from o to t.
inline float pulseIntegral(float t, float o, float invP, float P, float d, float end) {
    t = std::min(std::max(t, o), end);
    const int k = ifloor((t - o) * invP);
    const float r = t - o - static_cast<float>(k) * P;
    return static_cast<float>(k) * d + std::min(std::max(r, 0.f), d);
}

/// Colour of one window (hash h): glass by day, lit or dark at dusk and night.
Col windowColourFor(Col glass, TimeOfDay tod, float litP, uint64_t h) {
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
Col windowAverageFor(Col glass, TimeOfDay tod, float litP) {
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

struct Paint {
    const FacadeTex* tex = nullptr;
    Col c{0.f, 0.f, 0.f};
    float alpha = 1.f;
    Blend blend = Blend::Normal;
    bool plane = false;  // per-pixel fog from 1/z = A*x + B*y + C (pixel centres)
    float A = 0.f, B = 0.f, C = 0.f;
    float m = 0.f;      // constant fog amount when !plane
    bool grad = false;  // alpha *= clamp01(ga + gb * y)
    float ga = 1.f, gb = 0.f;
};

// 16 directions on the unit circle (exact literals: no libm).
constexpr float kCircle[16][2] = {
    {1.f, 0.f},  {0.92387953f, 0.38268343f},   {0.70710678f, 0.70710678f},   {0.38268343f, 0.92387953f},
    {0.f, 1.f},  {-0.38268343f, 0.92387953f},  {-0.70710678f, 0.70710678f},  {-0.92387953f, 0.38268343f},
    {-1.f, 0.f}, {-0.92387953f, -0.38268343f}, {-0.70710678f, -0.70710678f}, {-0.38268343f, -0.92387953f},
    {0.f, -1.f}, {0.38268343f, -0.92387953f},  {0.70710678f, -0.70710678f},  {0.92387953f, -0.38268343f}};

struct Canvas {
    int W = 0, H = 0;
    float* px = nullptr;    // W*H*3 linear-ish RGB in [0, 1+]
    float* mask = nullptr;  // W*H shadow mask
    float* cov = nullptr;   // W+2 coverage accumulator for one row
    Col fog{0.5f, 0.5f, 0.5f};
    float fogD = 1000.f;  // distance (m) at which fog reaches 50 %

    float fogAt(float z) const { return z <= 0.f ? 0.f : z / (z + fogD); }

    void blendRow(int row, int lo, int hi, const Paint& pt) {
        float a0 = pt.alpha;
        if (pt.grad) a0 *= clamp01(pt.ga + pt.gb * (static_cast<float>(row) + 0.5f));
        if (a0 <= 0.f) return;
        float* d = px + (static_cast<size_t>(row) * W + lo) * 3;
        const float* cv = cov;
        if (pt.tex) {
            facadeRow(*pt.tex, row, lo, hi, a0, d);
            return;
        }
        if (pt.blend == Blend::Shadow) {
            float* mk = mask + static_cast<size_t>(row) * W;
            float iz = pt.A * (static_cast<float>(lo) + 0.5f) + pt.B * (static_cast<float>(row) + 0.5f) + pt.C;
            for (int x = lo; x <= hi; ++x, iz += pt.A) {
                float keep = 1.f - pt.m;
                if (pt.plane) keep = 1.f - 1.f / (1.f + fogD * std::max(iz, 0.f));
                const float a = cv[x] * a0 * keep;
                if (a > mk[x]) mk[x] = a;
            }
            return;
        }
        if (!pt.plane) {
            if (pt.blend == Blend::Add) {
                const Col s = pt.c * (a0 * (1.f - 0.7f * pt.m));
                for (int x = lo; x <= hi; ++x, d += 3) {
                    const float a = cv[x];
                    d[0] += s.r * a;
                    d[1] += s.g * a;
                    d[2] += s.b * a;
                }
                return;
            }
            const Col s = mixc(pt.c, fog, pt.m);
            for (int x = lo; x <= hi; ++x, d += 3) {
                const float a = cv[x] * a0;
                d[0] += (s.r - d[0]) * a;
                d[1] += (s.g - d[1]) * a;
                d[2] += (s.b - d[2]) * a;
            }
            return;
        }
        float iz = pt.A * (static_cast<float>(lo) + 0.5f) + pt.B * (static_cast<float>(row) + 0.5f) + pt.C;
        const Col dc{fog.r - pt.c.r, fog.g - pt.c.g, fog.b - pt.c.b};
        for (int x = lo; x <= hi; ++x, d += 3, iz += pt.A) {
            const float a = cv[x] * a0;
            if (a <= 0.f) continue;
            const float m = 1.f / (1.f + fogD * std::max(iz, 0.f));
            if (pt.blend == Blend::Add) {
                const float k = a * (1.f - 0.7f * m);
                d[0] += pt.c.r * k;
                d[1] += pt.c.g * k;
                d[2] += pt.c.b * k;
            } else {
                d[0] += (pt.c.r + dc.r * m - d[0]) * a;
                d[1] += (pt.c.g + dc.g * m - d[1]) * a;
                d[2] += (pt.c.b + dc.b * m - d[2]) * a;
            }
        }
    }

    void facadeRow(const FacadeTex& t, int row, int lo, int hi, float a0, float* d) {
        const float v0 = static_cast<float>(row) / t.H - t.v0, v1 = static_cast<float>(row + 1) / t.H - t.v0;
        const float fi = 1.f / t.f;
        float Zl, zl;
        t.at(static_cast<float>(lo), Zl, zl);
        for (int x = lo; x <= hi; ++x, d += 3) {
            float Zr, zr;
            t.at(static_cast<float>(x + 1), Zr, zr);
            const float a = cov[x] * a0;
            if (a > 0.f) {
                const float za = std::min(Zl, Zr), zb = std::max(Zl, Zr);
                const float zc = std::min(0.5f * (zl + zr), 1e5f);
                const float ytop = t.h - v0 * zc * fi, ybot = t.h - v1 * zc * fi;
                const float cz = zb - za > 1e-4f ? (pulseIntegral(zb, t.oz, t.ipz, t.pz, t.wz, t.zEnd) -
                                                    pulseIntegral(za, t.oz, t.ipz, t.pz, t.wz, t.zEnd)) /
                                                       (zb - za)
                                                 : 0.f;
                const float cy = (pulseIntegral(ytop, t.oy, t.ipy, t.py, t.wy, t.yEnd) -
                                  pulseIntegral(ybot, t.oy, t.ipy, t.py, t.wy, t.yEnd)) /
                                 (ytop - ybot);
                const float wc = cz * cy;
                Col s = t.wall;
                if (wc > 0.f) {
                    Col win = t.winAvg;
                    if (zb - za < 0.7f * t.pz && ytop - ybot < 0.7f * t.py) {  // one window: its own colour
                        const int kz = ifloor((0.5f * (za + zb) - t.oz) * t.ipz);
                        const int ky = ifloor((0.5f * (ytop + ybot) - t.oy) * t.ipy);
                        win = windowColourFor(t.glass, t.tod, t.litP,
                                              hashPair(t.seed, static_cast<uint64_t>(ky * 256 + kz)));
                    }
                    s = mixc(s, win, wc);
                }
                const float m = zc / (zc + fogD);
                d[0] += (s.r + (fog.r - s.r) * m - d[0]) * a;
                d[1] += (s.g + (fog.g - s.g) * m - d[1]) * a;
                d[2] += (s.b + (fog.b - s.b) * m - d[2]) * a;
            }
            Zl = Zr;
            zl = zr;
        }
    }

    /// Convex polygon in pixel coordinates (pixel (i, j) covers [i, i+1) x [j, j+1)): exact
    /// coverage along x, kSub sub-scanlines along y.
    void fillConvex(const V2* p, int n, const Paint& pt) {
        float xmin = p[0].x, xmax = p[0].x, ymin = p[0].y, ymax = p[0].y;
        int top = 0;
        for (int i = 1; i < n; ++i) {
            xmin = std::min(xmin, p[i].x);
            xmax = std::max(xmax, p[i].x);
            if (p[i].y < ymin) {
                ymin = p[i].y;
                top = i;
            }
            ymax = std::max(ymax, p[i].y);
        }
        if (!(xmax > 0.f && xmin < static_cast<float>(W) && ymax > 0.f && ymin < static_cast<float>(H))) return;
        constexpr float w = 1.f / kSub;
        const int r0 = std::max(0, ifloor(ymin));
        const int r1 = std::min(H - 1, ifloor(ymax));
        const float fw = static_cast<float>(W);
        // two chains from the top vertex, one walking forwards and one backwards; the sub-scanline
        // span is [min, max] of their x, so their orientation does not matter
        Chain ca{p, n, top, +1}, cb{p, n, top, -1};
        static_assert(kSub == 4, "rows are processed as four sub-scanlines at once");
        const F4 sub{0.125f, 0.375f, 0.625f, 0.875f};
        const F4 zero = splat(0.f), fw4 = splat(fw);
        for (int row = r0; row <= r1; ++row) {
            const float fr = static_cast<float>(row);
            F4 l, r;
            bool all;  // every sub-scanline has a non-empty span
            if (fr + 0.125f >= ymin && fr + 0.875f < ymax && (ca.at(fr + 0.125f), cb.at(fr + 0.125f), true) &&
                p[ca.next].y > fr + 0.875f && p[cb.next].y > fr + 0.875f) {
                // both chains run straight through the row: four sub-scanlines in one go
                const F4 ys = splat(fr) + sub;
                const F4 xa = splat(p[ca.cur].x) + (ys - splat(p[ca.cur].y)) * splat(ca.k);
                const F4 xb = splat(p[cb.cur].x) + (ys - splat(p[cb.cur].y)) * splat(cb.k);
                l = vmax(vmin(xa, xb), zero);
                r = vmin(vmax(xa, xb), fw4);
                all = hmax(l) < hmin(r);
            } else {
                // a vertex inside the row, or the polygon's top or bottom: walk sub-scanline by sub-scanline
                all = true;
                for (int k = 0; k < kSub; ++k) {
                    const float y = fr + (static_cast<float>(k) + 0.5f) * w;
                    float lk = 0.f, rk = 0.f;
                    if (y >= ymin && y < ymax) {
                        const float xa = ca.at(y), xb = cb.at(y);
                        lk = std::max(std::min(xa, xb), 0.f);
                        rk = std::min(std::max(xa, xb), fw);
                    }
                    if (!(lk < rk)) lk = rk = 0.f;  // empty: contributes nothing below
                    all = all && lk < rk;
                    l[k] = lk;
                    r[k] = rk;
                }
            }
            // extent of the non-empty sub-spans (empty ones are [0, 0))
            float minL = 1e30f, maxR = -1e30f;
            for (int k = 0; k < kSub; ++k)
                if (l[k] < r[k]) {
                    minL = std::min(minL, l[k]);
                    maxR = std::max(maxR, r[k]);
                }
            if (!(minL < maxR)) continue;
            const int lo = static_cast<int>(minL);
            const int hi = std::min(W - 1, static_cast<int>(maxR));
            // pixels inside every sub-span are fully covered; the others get their exact coverage
            int inL = hi + 1, inR = hi + 1;
            if (all) {
                inL = iceil(hmax(l));
                inR = static_cast<int>(hmin(r));
                if (inL >= inR) inL = inR = hi + 1;
            }
            for (int i = lo; i < inL; ++i) {
                const F4 a = splat(static_cast<float>(i));
                cov[i] = w * hsum(vmax(vmin(r, a + splat(1.f)) - vmax(l, a), zero));
            }
            for (int i = inL; i < inR; ++i) cov[i] = 1.f;
            for (int i = inR; i <= hi; ++i) {
                const F4 a = splat(static_cast<float>(i));
                cov[i] = w * hsum(vmax(vmin(r, a + splat(1.f)) - vmax(l, a), zero));
            }
            blendRow(row, lo, hi, pt);
            std::fill(cov + lo, cov + hi + 1, 0.f);
        }
    }

    /// One monotone chain of a convex polygon, walked downwards.
    struct Chain {
        const V2* p;
        int n, cur, dir, next, steps = 0;
        float k = 0.f;
        Chain(const V2* pts, int count, int start, int d) : p(pts), n(count), cur(start), dir(d), next(0) {
            advanceIndex();
            slope();
        }
        void advanceIndex() {
            next = cur + dir;
            if (next == n) next = 0;
            if (next < 0) next = n - 1;
        }
        void slope() {
            const float dy = p[next].y - p[cur].y;
            k = dy > 0.f ? (p[next].x - p[cur].x) / dy : 0.f;
        }
        float at(float y) {
            while (p[next].y <= y && steps < n) {
                cur = next;
                advanceIndex();
                ++steps;
                slope();
            }
            return p[cur].x + (y - p[cur].y) * k;
        }
    };

    /// Ellipse as a 16-gon (antialiased through fillConvex).
    void ellipse(float cx, float cy, float rx, float ry, const Paint& pt) {
        V2 p[16];
        const int step = rx + ry < 8.f ? 2 : 1;  // an octagon is exact enough under ~4 px radius
        int n = 0;
        for (int i = 0; i < 16; i += step) p[n++] = {cx + rx * kCircle[i][0], cy + ry * kCircle[i][1]};
        fillConvex(p, n, pt);
    }

    /// Soft ellipse: alpha falls off as (1 - r^2)^2. Radii under 0.75 px keep their energy.
    void softEllipse(float cx, float cy, float rx, float ry, const Paint& pt) {
        float alpha = pt.alpha;
        if (rx < 0.75f) {
            alpha *= rx / 0.75f;
            rx = 0.75f;
        }
        if (ry < 0.75f) {
            alpha *= ry / 0.75f;
            ry = 0.75f;
        }
        if (alpha <= 0.f) return;
        if (cx + rx <= 0.f || cx - rx >= static_cast<float>(W) || cy + ry <= 0.f || cy - ry >= static_cast<float>(H))
            return;
        const int x0 = std::max(0, ifloor(cx - rx));
        const int x1 = std::min(W - 1, ifloor(cx + rx));
        const int y0 = std::max(0, ifloor(cy - ry));
        const int y1 = std::min(H - 1, ifloor(cy + ry));
        const float irx = 1.f / rx, iry = 1.f / ry;
        const bool add = pt.blend == Blend::Add;
        const Col s = add ? pt.c * (alpha * (1.f - 0.7f * pt.m)) : mixc(pt.c, fog, pt.m);
        for (int y = y0; y <= y1; ++y) {
            const float dy = (static_cast<float>(y) + 0.5f - cy) * iry;
            const float dy2 = dy * dy;
            if (dy2 >= 1.f) continue;
            float* d = px + (static_cast<size_t>(y) * W + x0) * 3;
            for (int x = x0; x <= x1; ++x, d += 3) {
                const float dx = (static_cast<float>(x) + 0.5f - cx) * irx;
                const float t = 1.f - dx * dx - dy2;
                if (t <= 0.f) continue;
                const float a = t * t;
                if (add) {
                    d[0] += s.r * a;
                    d[1] += s.g * a;
                    d[2] += s.b * a;
                } else {
                    const float k = a * alpha;
                    d[0] += (s.r - d[0]) * k;
                    d[1] += (s.g - d[1]) * k;
                    d[2] += (s.b - d[2]) * k;
                }
            }
        }
    }

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
                float c = clamp01(fr + 1.f - t[0]) + clamp01(fr + 1.f - t[1]) + clamp01(fr + 1.f - t[2]) +
                          clamp01(fr + 1.f - t[3]);
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

// ------------------------------------------------------------------------------------ scene

struct Params {
    TimeOfDay tod;
    Weather weather;
    Season season;
    Layout layout;
    bool snow, wet, haze, lightsOn, sunny;
    // camera (world: X right, Y up, Z along the street; camera at Z = 0)
    float f, camH, camX, tanYaw, cyaw, syaw, v0, mirror;
    // road cross-section (X of edges; centre line at X = 0)
    int lanesFwd, lanesBack;
    bool oneWay;
    float laneW, roadL, roadR, parkL, parkR, kerbH, vergeL, vergeR, walkL, walkR, shoulder;
    // light and colour
    Col skyTop, skyMid, skyHor, fog, ambient, sunCol;
    V3 sunDir;
    float fogD;
    Col asphalt, walkCol, kerbCol, groundCol, grassCol, foliage, foliage2, markWhite, markCentre;
    bool centreYellow, centreDouble, centreSolid;
    float dashLen, dashGap, dashPhase, markAlpha;
    float exposure, sat, vignette;
    Col wb;
    float litP;   // fraction of lit windows
    Col lampCol;  // street lamp colour
    bool hood;
    Col hoodCol;
    float hoodH;
};

Params makeParams(uint64_t key) {
    Params P{};
    Rng r(hashPair(key, kParams));
    float t = r.uni();
    P.tod = t < 0.68f ? TimeOfDay::Day : (t < 0.82f ? TimeOfDay::Dusk : TimeOfDay::Night);
    t = r.uni();
    P.weather =
        t < 0.45f ? Weather::Clear : (t < 0.73f ? Weather::Overcast : (t < 0.85f ? Weather::Fog : Weather::Rain));
    t = r.uni();
    P.season = t < 0.35f ? Season::Summer : (t < 0.55f ? Season::Spring : (t < 0.8f ? Season::Autumn : Season::Winter));
    t = r.uni();
    P.layout = t < 0.55f ? Layout::Urban : (t < 0.85f ? Layout::Suburban : Layout::Open);
    P.snow = P.season == Season::Winter && r.chance(0.5f);
    if (P.snow && P.weather == Weather::Rain) P.weather = Weather::Overcast;
    P.wet = P.weather == Weather::Rain || (P.weather == Weather::Overcast && r.chance(0.2f));
    P.haze = P.weather == Weather::Clear && r.chance(0.2f);
    P.sunny = P.weather == Weather::Clear && P.tod != TimeOfDay::Night;
    P.lightsOn = P.tod != TimeOfDay::Day;

    // camera
    P.f = r.range(0.42f, 0.68f);
    P.camH = r.range(1.25f, 2.0f);
    P.tanYaw = r.range(-0.11f, 0.11f);
    P.cyaw = 1.f / std::sqrt(1.f + P.tanYaw * P.tanYaw);
    P.syaw = P.tanYaw * P.cyaw;
    P.v0 = r.range(0.4f, 0.53f);
    P.mirror = r.chance(0.25f) ? -1.f : 1.f;  // left-hand traffic

    // road
    const bool urban = P.layout == Layout::Urban, sub = P.layout == Layout::Suburban;
    P.laneW = r.range(2.9f, 3.6f);
    P.oneWay = urban && r.chance(0.15f);
    P.lanesFwd = urban ? r.irange(1, 2) : (sub ? 1 : r.irange(1, 2));
    P.lanesBack = P.oneWay ? 0 : (urban ? r.irange(1, 2) : P.lanesFwd);
    if (P.oneWay) P.lanesFwd = r.irange(2, 3);
    P.parkR = (urban && r.chance(0.7f)) || (sub && r.chance(0.5f)) ? r.range(2.0f, 2.4f) : 0.f;
    P.parkL = (urban && r.chance(0.6f)) || (sub && r.chance(0.4f)) ? r.range(2.0f, 2.4f) : 0.f;
    P.shoulder = P.layout == Layout::Open ? r.range(0.4f, 2.0f) : 0.f;
    const float halfBack = P.oneWay ? 0.f : static_cast<float>(P.lanesBack) * P.laneW;
    P.roadR = static_cast<float>(P.lanesFwd) * P.laneW + P.parkR + P.shoulder;
    P.roadL = -(halfBack + P.parkL + P.shoulder);
    if (P.oneWay) P.roadL = -P.parkL;  // one-way: all lanes from X = 0 to the right
    P.kerbH = P.layout == Layout::Open ? 0.f : r.range(0.1f, 0.18f);
    P.vergeR = sub ? r.range(0.8f, 3.f) : 0.f;
    P.vergeL = sub ? r.range(0.8f, 3.f) : 0.f;
    P.walkR = urban ? r.range(2.5f, 5.f) : (sub ? r.range(1.3f, 2.2f) : 0.f);
    P.walkL = urban ? r.range(2.5f, 5.f) : (sub ? r.range(1.3f, 2.2f) : 0.f);
    const int lane = r.irange(0, P.lanesFwd - 1);
    P.camX = (static_cast<float>(lane) + 0.5f) * P.laneW + r.range(-0.35f, 0.35f);

    // markings
    t = r.uni();
    P.centreYellow = t < 0.45f;
    P.centreDouble = P.centreYellow && r.chance(0.6f);
    P.centreSolid = P.centreDouble || r.chance(0.15f);
    P.dashLen = r.range(2.f, 4.5f);
    P.dashGap = r.range(4.f, 9.f);
    P.dashPhase = r.range(0.f, P.dashLen + P.dashGap);
    P.markAlpha = r.range(0.55f, 0.95f);
    P.markWhite = rgb(228, 228, 222);
    P.markCentre = P.centreYellow ? rgb(226, 178, 40) : P.markWhite;

    // sky, light, fog
    const TimeOfDay tod = P.tod;
    const Weather w = P.weather;
    if (tod == TimeOfDay::Day) {
        if (w == Weather::Clear) {
            P.skyTop = r.jitter(rgb(62, 118, 200), 0.12f);
            P.skyHor = r.jitter(rgb(178, 205, 232), 0.06f);
            P.ambient = rgb(120, 128, 145);
            P.sunCol = rgb(205, 195, 172);
        } else if (w == Weather::Overcast) {
            P.skyTop = r.jitter(rgb(150, 156, 166), 0.1f);
            P.skyHor = r.jitter(rgb(200, 203, 208), 0.05f);
            P.ambient = rgb(205, 208, 215);
        } else if (w == Weather::Fog) {
            P.skyTop = r.jitter(rgb(190, 193, 198), 0.06f);
            P.skyHor = r.jitter(rgb(208, 210, 212), 0.04f);
            P.ambient = rgb(200, 202, 206);
        } else {
            P.skyTop = r.jitter(rgb(110, 116, 126), 0.1f);
            P.skyHor = r.jitter(rgb(160, 165, 172), 0.06f);
            P.ambient = rgb(150, 154, 162);
        }
    } else if (tod == TimeOfDay::Dusk) {
        if (w == Weather::Clear) {
            P.skyTop = r.jitter(rgb(45, 55, 110), 0.15f);
            P.skyMid = r.jitter(rgb(160, 110, 135), 0.15f);
            P.skyHor = r.jitter(rgb(250, 165, 90), 0.1f);
            P.ambient = rgb(80, 75, 95);
            P.sunCol = rgb(150, 90, 45);
        } else {
            P.skyTop = r.jitter(rgb(70, 72, 92), 0.12f);
            P.skyMid = r.jitter(rgb(115, 105, 115), 0.12f);
            P.skyHor = r.jitter(rgb(160, 130, 118), 0.1f);
            P.ambient = rgb(85, 82, 92);
        }
    } else {
        P.skyTop = r.jitter(rgb(4, 6, 16), 0.2f);
        P.skyHor = r.jitter(urban ? rgb(42, 34, 34) : rgb(20, 22, 34), 0.2f);
        if (w != Weather::Clear) P.skyHor = P.skyHor * 1.4f;
        P.ambient = rgb(30, 32, 44);
    }
    if (tod != TimeOfDay::Dusk) P.skyMid = mixc(P.skyTop, P.skyHor, 0.5f);
    if (P.sunny) {
        const float elev = tod == TimeOfDay::Dusk ? r.range(0.08f, 0.22f) : r.range(0.35f, 1.1f);
        const float sxSign = r.chance(0.5f) ? -1.f : 1.f;
        const float sx = sxSign * r.range(0.25f, 1.f);
        const float sz = r.range(-0.9f, 0.9f);
        const float n = std::sqrt(sx * sx + elev * elev + sz * sz);
        P.sunDir = {sx / n, elev / n, sz / n};
    }
    P.fog = P.skyHor;
    switch (w) {
        case Weather::Clear:
            P.fogD = P.haze ? r.range(140.f, 300.f) : r.range(700.f, 1500.f);
            break;
        case Weather::Overcast:
            P.fogD = r.range(300.f, 650.f);
            break;
        case Weather::Fog:
            P.fogD = r.range(16.f, 45.f);
            break;
        case Weather::Rain:
            P.fogD = r.range(90.f, 200.f);
            break;
    }
    if (P.haze) P.fog = mixc(P.skyHor, rgb(215, 210, 200), 0.4f);

    // materials
    P.asphalt = r.jitter(rgb(88, 88, 92), 0.15f);
    if (P.wet) P.asphalt = P.asphalt * 0.6f;
    static constexpr Col kWalk[] = {rgb(158, 154, 146), rgb(140, 138, 136), rgb(170, 150, 130), rgb(125, 118, 112)};
    P.walkCol = r.jitter(r.pick(kWalk), 0.08f);
    P.kerbCol = r.jitter(rgb(175, 174, 170), 0.06f);
    switch (P.season) {
        case Season::Summer:
            P.grassCol = r.jitter(rgb(78, 110, 48), 0.12f);
            P.foliage = r.jitter(rgb(52, 88, 38), 0.15f);
            P.foliage2 = r.jitter(rgb(88, 122, 52), 0.15f);
            break;
        case Season::Spring:
            P.grassCol = r.jitter(rgb(100, 140, 58), 0.12f);
            P.foliage = r.chance(0.25f) ? r.jitter(rgb(230, 185, 200), 0.08f) : r.jitter(rgb(105, 150, 60), 0.12f);
            P.foliage2 = r.jitter(rgb(140, 180, 80), 0.12f);
            break;
        case Season::Autumn: {
            static constexpr Col kLeaf[] = {rgb(200, 110, 30), rgb(210, 160, 40), rgb(160, 60, 30), rgb(150, 140, 50)};
            P.grassCol = r.jitter(rgb(112, 110, 58), 0.12f);
            P.foliage = r.jitter(r.pick(kLeaf), 0.1f);
            P.foliage2 = r.jitter(r.pick(kLeaf), 0.1f);
            break;
        }
        case Season::Winter:
            P.grassCol = r.jitter(rgb(112, 104, 80), 0.1f);
            P.foliage = rgb(70, 60, 52);
            P.foliage2 = rgb(90, 80, 70);
            break;
    }
    if (P.snow) {
        P.grassCol = r.jitter(rgb(225, 228, 235), 0.03f);
        P.walkCol = mixc(P.walkCol, P.grassCol, 0.75f);
    }
    P.groundCol = urban ? P.walkCol * 0.92f : P.grassCol;

    // camera look
    P.exposure = r.range(0.88f, 1.12f);
    P.wb = {r.range(0.95f, 1.05f), 1.f, r.range(0.94f, 1.06f)};
    P.sat = w == Weather::Rain || w == Weather::Fog ? r.range(0.6f, 0.85f) : r.range(0.85f, 1.12f);
    P.vignette = r.range(0.1f, 0.45f);
    P.litP = tod == TimeOfDay::Night ? r.range(0.3f, 0.75f) : r.range(0.1f, 0.35f);
    P.lampCol = r.chance(0.55f) ? rgb(255, 180, 90) : rgb(230, 235, 255);
    P.hood = r.chance(0.25f);
    static constexpr Col kHood[] = {rgb(20, 20, 22), rgb(200, 200, 205), rgb(120, 122, 128), rgb(30, 40, 70),
                                    rgb(110, 20, 20)};
    P.hoodCol = r.pick(kHood);
    P.hoodH = r.range(0.05f, 0.13f);
    return P;
}

// ------------------------------------------------------------------------------------ camera

struct Cam {
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

int clipNear(const V3* in, int n, V3* out) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const V3& a = in[i];
        const V3& b = in[(i + 1) % n];
        const bool ain = a.z >= kNear, bin = b.z >= kNear;
        if (ain) out[m++] = a;
        if (ain != bin) out[m++] = lerp3(a, b, (kNear - a.z) / (b.z - a.z));
    }
    return m;
}

enum class Fog : uint8_t { Const, Plane };

struct Painter {
    Canvas& cv;
    const Cam& cam;

    void poly(const V3* w, int n, Col c, float alpha = 1.f, Fog fm = Fog::Const, Blend blend = Blend::Normal,
              const Paint* base = nullptr) {
        V3 cs[10], cl[12];
        V2 sp[12];
        // cull against the near plane and the four side planes of the view frustum
        const float kx = 0.5f / cam.f, ky0 = cam.v0 / cam.f, ky1 = (cam.v0 - 1.f) / cam.f;
        unsigned all = 31u;
        for (int i = 0; i < n; ++i) {
            const V3 q = cam.toCam(w[i]);
            cs[i] = q;
            unsigned out = 0u;
            if (q.z < kNear) out |= 1u;
            if (q.x < -kx * q.z) out |= 2u;
            if (q.x > kx * q.z) out |= 4u;
            if (q.y > ky0 * q.z) out |= 8u;
            if (q.y < ky1 * q.z) out |= 16u;
            all &= out;
        }
        if (all != 0u) return;
        const int m = clipNear(cs, n, cl);
        if (m < 3) return;
        float zs = 0.f;
        for (int i = 0; i < m; ++i) {
            sp[i] = cam.project(cl[i]);
            zs += cl[i].z;
        }
        Paint pt = base ? *base : Paint{};
        pt.c = c;
        pt.alpha = alpha;
        pt.blend = blend;
        pt.m = cv.fogAt(zs / static_cast<float>(m));
        if (fm == Fog::Plane) {
            float nx = 0.f, ny = 0.f, nz = 0.f;  // Newell normal
            for (int i = 0, j = m - 1; i < m; j = i++) {
                nx += (cl[j].y - cl[i].y) * (cl[j].z + cl[i].z);
                ny += (cl[j].z - cl[i].z) * (cl[j].x + cl[i].x);
                nz += (cl[j].x - cl[i].x) * (cl[j].y + cl[i].y);
            }
            const float d = nx * cl[0].x + ny * cl[0].y + nz * cl[0].z;
            const float nn = std::fabs(nx) + std::fabs(ny) + std::fabs(nz);
            float zlo = cl[0].z, zhi = cl[0].z;
            for (int i = 1; i < m; ++i) {
                zlo = std::min(zlo, cl[i].z);
                zhi = std::max(zhi, cl[i].z);
            }
            // per-pixel fog only where it varies visibly across the polygon
            if (std::fabs(d) > 1e-4f * nn && cv.fogAt(zhi) - cv.fogAt(zlo) > 0.01f) {
                const float id = 1.f / d, f = cam.f;
                pt.plane = true;
                pt.A = nx * id / (f * cam.W);
                pt.B = -ny * id / (f * cam.H);
                pt.C = (nz - nx * 0.5f / f + ny * cam.v0 / f) * id;
            }
        }
        cv.fillConvex(sp, m, pt);
    }
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
    void rectY(float y, float x0, float x1, float z0, float z1, Col c, float alpha = 1.f, Fog fm = Fog::Const,
               Blend blend = Blend::Normal) {
        quad({x0, y, z0}, {x1, y, z0}, {x1, y, z1}, {x0, y, z1}, c, alpha, fm, blend);
    }

    /// A ribbon of world `width` facing the camera from a to b.
    void line(V3 a, V3 b, float width, Col c, float alpha = 1.f, Blend blend = Blend::Normal) {
        V3 ca = cam.toCam(a), cb = cam.toCam(b);
        if (ca.z < kNear && cb.z < kNear) return;
        if (ca.z < kNear) ca = lerp3(ca, cb, (kNear - ca.z) / (cb.z - ca.z));
        if (cb.z < kNear) cb = lerp3(cb, ca, (kNear - cb.z) / (ca.z - cb.z));
        const V2 pa = cam.project(ca), pb = cam.project(cb);
        const float ha = 0.5f * width * cam.f / ca.z * cam.pxScale;
        const float hb = 0.5f * width * cam.f / cb.z * cam.pxScale;
        float dx = pb.x - pa.x, dy = pb.y - pa.y;
        const float len = std::sqrt(dx * dx + dy * dy);
        float nx = 1.f, ny = 0.f;
        if (len > 1e-4f) {
            nx = -dy / len;
            ny = dx / len;
        }
        const V2 q[4] = {{pa.x + nx * ha, pa.y + ny * ha},
                         {pb.x + nx * hb, pb.y + ny * hb},
                         {pb.x - nx * hb, pb.y - ny * hb},
                         {pa.x - nx * ha, pa.y - ny * ha}};
        Paint pt;
        pt.c = c;
        pt.alpha = alpha;
        pt.blend = blend;
        pt.m = cv.fogAt(0.5f * (ca.z + cb.z));
        cv.fillConvex(q, 4, pt);
    }

    /// Projected radius in pixels of a sphere of world radius r around c; -1 when it is out of view.
    float screenRadius(V3 c, float r) const {
        const V3 cc = cam.toCam(c);
        if (cc.z < -r) return -1.f;
        if (cc.z < r + kNear) return 1e9f;
        const V2 p = cam.project(cc);
        const float rp = r * cam.f / cc.z * cam.pxScale;
        const float m = 1.5f * rp;
        if (p.x + m < 0.f || p.x - m > cam.W || p.y + m < 0.f || p.y - m > cam.H) return -1.f;
        return rp;
    }

    /// Screen-facing ellipse of world radii (rx, ry) around `centre`.
    void disc(V3 centre, float rx, float ry, Col c, float alpha = 1.f) {
        const V3 cc = cam.toCam(centre);
        if (cc.z < kNear + std::max(rx, ry)) return;
        const V2 p = cam.project(cc);
        Paint pt;
        pt.c = c;
        pt.alpha = alpha;
        pt.m = cv.fogAt(cc.z);
        const float k = cam.f / cc.z;
        cv.ellipse(p.x, p.y, rx * k * cam.W, ry * k * cam.H, pt);
    }
    /// Additive soft glow of world radius `r`.
    void glow(V3 centre, float r, Col c, float intensity) {
        const V3 cc = cam.toCam(centre);
        if (cc.z < kNear) return;
        const V2 p = cam.project(cc);
        Paint pt;
        pt.c = c;
        pt.alpha = intensity;
        pt.blend = Blend::Add;
        pt.m = cv.fogAt(cc.z);
        const float k = cam.f / cc.z * (1.f + 2.f * pt.m);
        cv.softEllipse(p.x, p.y, r * k * cam.W, r * k * cam.H, pt);
    }
    /// Additive pool of light of world radius r on the ground around (x, z).
    void groundPool(float x, float z, float r, Col c, float intensity) {
        const V3 a = cam.toCam({x, 0.f, z - r}), b = cam.toCam({x, 0.f, z + r}), m = cam.toCam({x, 0.f, z});
        if (a.z < kNear || m.z < 1.f) return;
        const V2 pa = cam.project(a), pb = cam.project(b), pm = cam.project(m);
        Paint pt;
        pt.c = c;
        pt.alpha = intensity;
        pt.blend = Blend::Add;
        pt.m = cv.fogAt(m.z);
        const float rx = r * cam.f / m.z * cam.W;
        cv.softEllipse(pm.x, 0.5f * (pa.y + pb.y), rx, 0.5f * std::fabs(pa.y - pb.y), pt);
    }
};

// ------------------------------------------------------------------------------------ objects

struct Building {
    float z0, z1, x, H, depth;  // x: facade plane (signed), depth: extent away from the street
    int side;                   // -1 left, +1 right
    Col wall, win, shop, sign, roof;
    float floorH, groundH, winW, winH, spacing;
    bool shopFront, ribbon, gable, fence;
    float roofH;
    Col fenceCol;
    uint64_t seed;
};

enum class Kind : uint8_t { Tree, Conifer, Lamp, UtilityPole, Sign, Car, Person };

struct Prop {
    Kind kind;
    float x, z;  // world position (x: centre; z: nearest end for cars)
    float a, b;  // kind-specific sizes
    int side;
    int var;
    Col col;
    uint32_t order;
    uint64_t seed;
};

struct Scratch {
    std::vector<float> px, mask, cov;  // cov stays all zero between polygons
    std::vector<Building> buildings;
    std::vector<Prop> props;
};

class SceneRenderer {
public:
    SceneRenderer(const Params& P, uint64_t key, Canvas& cv, const Cam& cam, Scratch& s)
        : P_(P), key_(key), cv_(cv), cam_(cam), pa_{cv, cam}, s_(s) {}

    void draw() {
        generate();
        drawSky();
        drawBackdrop();
        drawGround();
        drawRoad();
        drawShadows();
        drawHeadlights();
        for (auto it = s_.buildings.rbegin(); it != s_.buildings.rend(); ++it)
            if (it->side < 0) drawBuilding(*it);
        for (auto it = s_.buildings.rbegin(); it != s_.buildings.rend(); ++it)
            if (it->side > 0) drawBuilding(*it);
        for (const Prop& p : s_.props) drawProp(p);
        drawHood();
    }

private:
    const Params& P_;
    uint64_t key_;
    Canvas& cv_;
    const Cam& cam_;
    Painter pa_;
    Scratch& s_;

    bool night() const { return P_.tod == TimeOfDay::Night; }

    /// Albedo lit by ambient sky light and the sun for a surface of world normal n.
    Col shade(Col albedo, V3 n) const {
        const float sky = n.y > 0.5f ? 1.f : (n.y < -0.5f ? 0.45f : 0.8f);
        Col light = P_.ambient * sky;
        if (P_.sunny) {
            const float l = n.x * P_.sunDir.x + n.y * P_.sunDir.y + n.z * P_.sunDir.z;
            if (l > 0.f) light = light + P_.sunCol * l;
        }
        return albedo * light * 1.35f;
    }
    Col top(Col a) const { return shade(a, {0.f, 1.f, 0.f}); }
    Col front(Col a) const { return shade(a, {0.f, 0.f, -1.f}); }
    Col facing(Col a, float nx) const { return shade(a, {nx, 0.f, 0.f}); }

    // ---------------------------------------------------------------- generation
    float streetEdge(int side) const {  // X of the outer edge of the sidewalk
        return side > 0 ? P_.roadR + P_.vergeR + P_.walkR : P_.roadL - P_.vergeL - P_.walkL;
    }

    void generate() {
        s_.buildings.clear();
        s_.props.clear();
        if (P_.layout != Layout::Open) {
            genBuildings(+1, kBuildRight);
            genBuildings(-1, kBuildLeft);
        }
        genProps();
        genTraffic();
        std::sort(s_.props.begin(), s_.props.end(),
                  [](const Prop& a, const Prop& b) { return a.z != b.z ? a.z > b.z : a.order < b.order; });
    }

    void genBuildings(int side, uint64_t stream) {
        Rng r(hashPair(key_, stream));
        const bool urban = P_.layout == Layout::Urban;
        static constexpr Col kFacade[] = {
            rgb(150, 80, 60),   rgb(165, 95, 70),   rgb(120, 68, 52),   rgb(200, 180, 145),
            rgb(215, 198, 160), rgb(225, 220, 205), rgb(200, 200, 196), rgb(150, 150, 150),
            rgb(125, 130, 136), rgb(215, 175, 150), rgb(175, 200, 180), rgb(230, 205, 135),
            rgb(160, 180, 205), rgb(70, 82, 95),    rgb(185, 120, 90),  rgb(240, 236, 225)};
        static constexpr Col kSiding[] = {rgb(235, 232, 222), rgb(200, 190, 165), rgb(160, 170, 180),
                                          rgb(170, 185, 200), rgb(225, 210, 160), rgb(140, 80, 60),
                                          rgb(120, 130, 115), rgb(210, 200, 190)};
        static constexpr Col kRoof[] = {rgb(70, 70, 75), rgb(95, 70, 60), rgb(150, 75, 55), rgb(55, 58, 65),
                                        rgb(115, 105, 95)};
        static constexpr Col kShop[] = {rgb(180, 40, 40),   rgb(30, 60, 120), rgb(30, 110, 60), rgb(220, 180, 40),
                                        rgb(240, 240, 240), rgb(40, 40, 40),  rgb(200, 100, 30)};
        const float edge = streetEdge(side);
        const float zEnd = urban ? r.range(140.f, 260.f) : r.range(110.f, 200.f);
        const float blockH = r.range(8.f, 24.f);
        float z = r.range(-8.f, 0.f);
        int idx = 0;
        while (z < zEnd && s_.buildings.size() < 96) {
            Building b{};
            b.side = side;
            b.seed = hashPair(hashPair(key_, stream), static_cast<uint64_t>(idx++));
            if (urban) {
                if (r.chance(0.07f)) z += r.range(3.f, 10.f);  // an alley
                b.z0 = z;
                b.z1 = z + r.range(8.f, 26.f);
                b.x = edge + static_cast<float>(side) * (r.chance(0.15f) ? r.range(0.5f, 3.f) : 0.f);
                b.H = std::max(5.f, blockH * r.range(0.6f, 1.5f));
                b.depth = r.range(10.f, 20.f);
                b.wall = r.jitter(r.pick(kFacade), 0.08f);
                b.ribbon = r.chance(0.12f);
                if (b.ribbon) b.wall = r.jitter(rgb(75, 88, 100), 0.1f);
                b.floorH = r.range(2.9f, 3.6f);
                b.groundH = r.range(3.6f, 5.f);
                b.winW = b.ribbon ? r.range(1.8f, 2.6f) : r.range(0.9f, 1.7f);
                b.winH = b.ribbon ? b.floorH - r.range(0.6f, 1.0f) : std::min(b.floorH - 0.8f, r.range(1.2f, 2.1f));
                b.spacing = b.winW + (b.ribbon ? r.range(0.2f, 0.5f) : r.range(0.8f, 2.4f));
                b.shopFront = r.chance(0.6f);
                b.shop = r.jitter(r.pick(kShop), 0.1f);
                b.sign = r.jitter(r.pick(kShop), 0.1f);
                b.gable = false;
                z = b.z1;
            } else {
                const float lot = r.range(14.f, 26.f);
                b.z0 = z + r.range(1.f, 5.f);
                b.z1 = b.z0 + std::min(lot - 3.f, r.range(8.f, 15.f));
                b.x = edge + static_cast<float>(side) * r.range(3.f, 10.f);
                const bool twoFloors = r.chance(0.6f);
                b.floorH = r.range(2.7f, 3.1f);
                b.groundH = b.floorH;
                b.H = (twoFloors ? 2.f : 1.f) * b.floorH + r.range(0.3f, 0.8f);
                b.depth = r.range(8.f, 12.f);
                b.wall = r.jitter(r.pick(kSiding), 0.06f);
                b.winW = r.range(0.9f, 1.5f);
                b.winH = r.range(1.1f, 1.5f);
                b.spacing = b.winW + r.range(1.5f, 3.5f);
                b.gable = true;
                b.roofH = r.range(1.8f, 3.5f);
                b.roof = r.jitter(r.pick(kRoof), 0.08f);
                if (P_.snow) b.roof = mixc(b.roof, rgb(235, 238, 245), 0.85f);
                b.fence = r.chance(0.5f);
                b.fenceCol = r.chance(0.5f) ? r.jitter(P_.foliage * 0.8f, 0.1f) : rgb(225, 225, 220);
                z += lot;
            }
            // glass: dark, partly reflecting the sky
            b.win = mixc(rgb(28, 34, 42), P_.skyHor * 0.75f, r.range(0.15f, 0.55f));
            s_.buildings.push_back(b);
        }
    }

    void addProp(Kind k, float x, float z, float a, float b, int side, int var, Col col) {
        if (s_.props.size() >= 400) return;
        Prop p{k, x, z, a, b, side, var, col, static_cast<uint32_t>(s_.props.size()), 0};
        p.seed = hashPair(key_ ^ 0x5A5A5A5Aull, p.order);
        s_.props.push_back(p);
    }

    void genProps() {
        Rng r(hashPair(key_, kProps));
        const bool urban = P_.layout == Layout::Urban, open = P_.layout == Layout::Open;
        static constexpr Col kCars[] = {rgb(235, 235, 235), rgb(20, 20, 22),   rgb(160, 162, 168), rgb(95, 98, 104),
                                        rgb(150, 25, 25),   rgb(30, 55, 110),  rgb(25, 35, 60),    rgb(200, 200, 205),
                                        rgb(60, 80, 60),    rgb(130, 110, 80), rgb(240, 240, 240), rgb(40, 40, 45)};
        static constexpr Col kClothes[] = {rgb(30, 30, 35),    rgb(60, 60, 70),  rgb(150, 30, 30), rgb(40, 60, 110),
                                           rgb(200, 200, 190), rgb(110, 90, 60), rgb(80, 110, 60)};
        for (int side = -1; side <= 1; side += 2) {
            const float sgn = static_cast<float>(side);
            const float kerb = side > 0 ? P_.roadR : P_.roadL;
            const float park = side > 0 ? P_.parkR : P_.parkL;
            // street lights / utility poles
            if (urban ? r.chance(0.85f) : r.chance(0.6f)) {
                const bool utility = !urban && r.chance(0.6f);
                const float spacing = utility ? r.range(30.f, 45.f) : r.range(22.f, 38.f);
                const float h = utility ? r.range(8.f, 10.f) : r.range(6.5f, 9.f);
                const float arm = r.range(1.f, 2.5f);
                float z = r.range(0.f, spacing);
                const float x = kerb + sgn * (open ? r.range(1.5f, 4.f) : r.range(0.4f, 0.8f));
                for (; z < 220.f; z += spacing)
                    addProp(utility ? Kind::UtilityPole : Kind::Lamp, x, z, h, arm, side, 0, {});
            }
            // trees
            float treeP = urban ? 0.45f : (open ? 0.65f : 0.85f);
            if (r.chance(treeP)) {
                const float spacing = open ? r.range(6.f, 30.f) : r.range(7.f, 16.f);
                const bool conifers = !urban && r.chance(0.3f);
                for (float z = r.range(0.f, spacing); z < 160.f; z += spacing * r.range(0.7f, 1.3f)) {
                    float x = urban ? kerb + sgn * r.range(0.9f, 1.4f)
                                    : (open ? kerb + sgn * r.range(3.f, 25.f)
                                            : kerb + sgn * (side > 0 ? P_.vergeR : P_.vergeL) * 0.5f +
                                                  sgn * (r.chance(0.5f) ? 0.f : r.range(4.f, 10.f)));
                    const float h = r.range(3.f, 6.5f), cr = r.range(1.6f, 3.2f);
                    const bool conifer = conifers && r.chance(0.7f);
                    const int var = r.irange(0, 3);
                    const float tint = r.uni();
                    addProp(conifer ? Kind::Conifer : Kind::Tree, x, z, h, cr, side, var,
                            mixc(P_.foliage, P_.foliage2, tint));
                }
            }
            // parked cars
            if (park > 0.f) {
                const float occ = r.range(0.35f, 0.9f);
                for (float z = r.range(2.f, 7.f); z < 110.f; z += r.range(5.2f, 7.f)) {
                    if (!r.chance(occ)) continue;
                    const float x = kerb - sgn * (r.range(0.95f, 1.2f));
                    const bool van = r.chance(0.1f);
                    const bool facing = side < 0 && !P_.oneWay ? r.chance(0.7f) : r.chance(0.1f);
                    const float len = van ? r.range(5.f, 6.f) : r.range(4.1f, 4.8f);
                    const Col col = r.jitter(r.pick(kCars), 0.08f);
                    addProp(Kind::Car, x, z, len, van ? 1.f : 0.f, side, facing ? 1 : 0, col);
                }
            }
            // signs
            const int nSigns = r.irange(0, open ? 2 : 3);
            for (int i = 0; i < nSigns; ++i) {
                const float x = kerb + sgn * r.range(0.4f, 1.2f);
                const float z = r.range(4.f, 70.f);
                const float h = r.range(2.2f, 2.8f);
                const float size = r.range(0.5f, 0.8f);
                const int var = r.irange(0, 4);
                addProp(Kind::Sign, x, z, h, size, side, var, {});
            }
            // pedestrians
            if (!open) {
                const int n = urban ? r.irange(0, 5) : r.irange(0, 1);
                const float walk = side > 0 ? P_.walkR : P_.walkL;
                const float verge = side > 0 ? P_.vergeR : P_.vergeL;
                for (int i = 0; i < n; ++i) {
                    const float x = kerb + sgn * (verge + r.range(0.4f, std::max(0.5f, walk - 0.4f)));
                    const float z = r.range(4.f, 60.f);
                    const float h = r.range(1.55f, 1.9f);
                    const Col col = r.pick(kClothes);
                    addProp(Kind::Person, x, z, h, 0.f, side, 0, col);
                }
            }
        }
    }

    void genTraffic() {
        Rng r(hashPair(key_, kTraffic));
        static constexpr Col kCars[] = {rgb(235, 235, 235), rgb(20, 20, 22),  rgb(160, 162, 168), rgb(95, 98, 104),
                                        rgb(150, 25, 25),   rgb(30, 55, 110), rgb(200, 200, 205), rgb(240, 240, 240)};
        const int n = r.irange(0, 3);
        for (int i = 0; i < n; ++i) {
            const bool oncoming = !P_.oneWay && r.chance(0.4f);
            const int lanes = oncoming ? P_.lanesBack : P_.lanesFwd;
            const int lane = r.irange(0, lanes - 1);
            const float x = (oncoming ? -1.f : 1.f) * (static_cast<float>(lane) + 0.5f) * P_.laneW +
                            (P_.oneWay ? 0.f : 0.f) + r.range(-0.3f, 0.3f);
            const float z = r.range(oncoming ? 10.f : 9.f, 90.f);
            const bool van = r.chance(0.15f);
            const float len = van ? r.range(5.f, 7.f) : r.range(4.1f, 4.8f);
            const Col col = r.jitter(r.pick(kCars), 0.08f);
            addProp(Kind::Car, x, z, len, van ? 1.f : 0.f, 0, oncoming ? 1 : 0, col);
        }
    }

    // ---------------------------------------------------------------- sky and backdrop
    /// Normalised u of a direction of azimuth tangent a (for things at infinity).
    float azimuthToU(float a) const { return 0.5f + P_.f * (a - P_.tanYaw) / (1.f + a * P_.tanYaw); }
    float uToAzimuth(float u) const {
        const float q = (u - 0.5f) / P_.f;
        return (q + P_.tanYaw) / (1.f - q * P_.tanYaw);
    }

    void drawSky() {
        const int W = cv_.W, H = cv_.H;
        for (int y = 0; y < H; ++y) {
            const float v = (static_cast<float>(y) + 0.5f) / static_cast<float>(H);
            const float e = (P_.v0 - v) / P_.f;  // elevation tangent
            const float t = clamp01(1.f - e / 1.2f);
            Col c;
            if (t < 0.55f)
                c = mixc(P_.skyTop, P_.skyMid, t / 0.55f);
            else
                c = mixc(P_.skyMid, P_.skyHor, sq((t - 0.55f) / 0.45f));
            float* d = cv_.px + static_cast<size_t>(y) * W * 3;
            for (int x = 0; x < W; ++x, d += 3) {
                d[0] = c.r;
                d[1] = c.g;
                d[2] = c.b;
            }
        }
        Rng r(hashPair(key_, kSky));
        const float W_ = static_cast<float>(W), H_ = static_cast<float>(H);
        // sun at dusk, moon at night
        if (P_.tod == TimeOfDay::Dusk && P_.weather == Weather::Clear) {
            const float u = azimuthToU(r.range(-0.7f, 0.7f)), v = P_.v0 - P_.f * r.range(0.01f, 0.08f);
            Paint g;
            g.blend = Blend::Add;
            g.c = rgb(255, 150, 60);
            g.alpha = 0.45f;
            cv_.softEllipse(u * W_, v * H_, 0.35f * W_, 0.22f * H_, g);
            g.c = rgb(255, 230, 180);
            g.alpha = 1.f;
            cv_.softEllipse(u * W_, v * H_, 0.03f * W_, 0.03f * H_, g);
        } else if (night() && P_.weather == Weather::Clear && r.chance(0.4f)) {
            const float u = azimuthToU(r.range(-0.8f, 0.8f)), v = P_.v0 - P_.f * r.range(0.3f, 0.8f);
            Paint g;
            g.blend = Blend::Add;
            g.c = rgb(60, 60, 70);
            g.alpha = 1.f;
            cv_.softEllipse(u * W_, v * H_, 0.06f * W_, 0.06f * H_, g);
            g.blend = Blend::Normal;
            g.c = rgb(235, 232, 215);
            cv_.ellipse(u * W_, v * H_, 0.012f * W_, 0.012f * H_, g);
        }
        // clouds
        int clouds = 0;
        Col lit = rgb(250, 250, 252), dark = rgb(190, 195, 205);
        float alpha = 0.85f;
        switch (P_.weather) {
            case Weather::Clear:
                clouds = r.chance(0.7f) ? r.irange(1, 6) : 0;
                break;
            case Weather::Overcast:
                clouds = r.irange(4, 9);
                lit = P_.skyHor * 1.05f;
                dark = P_.skyTop * 0.8f;
                alpha = 0.45f;
                break;
            case Weather::Rain:
                clouds = r.irange(4, 9);
                lit = P_.skyHor;
                dark = P_.skyTop * 0.7f;
                alpha = 0.5f;
                break;
            case Weather::Fog:
                clouds = 0;
                break;
        }
        if (P_.tod == TimeOfDay::Dusk) {
            lit = mixc(rgb(255, 170, 130), P_.skyHor, 0.3f);
            dark = rgb(95, 75, 105);
        } else if (night()) {
            lit = P_.skyHor * 1.3f;
            dark = P_.skyTop;
            alpha *= 0.6f;
        }
        for (int i = 0; i < clouds; ++i) {
            const float a = r.range(-1.6f, 1.6f), e = r.range(0.08f, 1.1f);
            const float u = azimuthToU(a), v = P_.v0 - P_.f * e;
            const float size = r.range(0.05f, 0.16f) * (0.5f + e);
            const int lobes = r.irange(3, 6);
            Paint pt;
            pt.alpha = alpha;
            pt.c = dark;
            cv_.softEllipse(u * W_, (v + size * 0.25f) * H_, size * 2.2f * W_, size * 0.6f * H_, pt);
            pt.c = lit;
            for (int k = 0; k < lobes; ++k) {
                const float du = r.range(-1.6f, 1.6f) * size, dv = r.range(-0.5f, 0.1f) * size;
                const float rr = size * r.range(0.5f, 1.f);
                cv_.softEllipse((u + du) * W_, (v + dv) * H_, rr * 1.3f * W_, rr * 0.8f * H_, pt);
            }
        }
    }

    void drawBackdrop() {
        Rng r(hashPair(key_, kBackdrop));
        const float H_ = static_cast<float>(H());
        constexpr int kMax = 128;
        float ka[kMax], kh[kMax];
        // distant hills (suburban and open roads), far city skyline (urban)
        if (P_.layout != Layout::Urban && r.chance(0.75f)) {
            int n = 0;
            const float amp = r.range(0.01f, 0.07f);
            for (float a = -2.f; a < 2.2f && n < kMax; a += r.range(0.1f, 0.3f)) {
                ka[n] = a;
                kh[n++] = amp * r.uni();
            }
            Paint pt;
            pt.c = mixc(P_.grassCol * 0.6f, rgb(90, 105, 130), 0.5f) * (night() ? 0.15f : 1.f);
            pt.m = std::max(0.5f, cv_.fogAt(2000.f));
            heightField(ka, kh, n, false, P_.v0 * H_, P_.v0 * H_ + 0.02f * H_, pt);
        }
        if (P_.layout == Layout::Urban) {
            int n = 0;
            for (float a = -2.f; a < 2.2f && n < kMax; a += r.range(0.015f, 0.06f)) {
                ka[n] = a;
                kh[n++] = r.chance(0.15f) ? 0.f : r.range(0.005f, 0.05f);
            }
            Paint pt;
            pt.c = (night() ? rgb(20, 20, 26) : rgb(120, 125, 135) * 0.9f);
            pt.m = std::max(0.55f, cv_.fogAt(900.f));
            heightField(ka, kh, n, true, P_.v0 * H_, P_.v0 * H_ + 0.02f * H_, pt);
        }
        // a tree line at a finite distance
        if (P_.layout != Layout::Urban && r.chance(P_.layout == Layout::Open ? 0.85f : 0.5f)) {
            const float D = r.range(60.f, 220.f);
            int n = 0;
            const float th = r.range(5.f, 14.f) / D;
            for (float a = -2.f; a < 2.2f && n < kMax; a += r.range(0.02f, 0.06f)) {
                ka[n] = a;
                kh[n++] = r.chance(0.08f) ? 0.f : th * r.range(0.55f, 1.f);
            }
            Paint pt;
            pt.c = top(P_.season == Season::Winter ? rgb(80, 72, 66) : P_.foliage * 0.75f);
            pt.m = cv_.fogAt(D);
            const float base = (P_.v0 + P_.f * P_.camH / D) * H_;
            heightField(ka, kh, n, false, base, base, pt);
        }
    }
    int W() const { return cv_.W; }
    int H() const { return cv_.H; }

    /// Silhouette from knots (azimuth tangent -> elevation tangent above `baseY`), down to `bottomY`.
    void heightField(const float* ka, const float* kh, int n, bool step, float baseY, float bottomY, const Paint& pt) {
        int i = 0;
        const float W_ = static_cast<float>(W()), H_ = static_cast<float>(H());
        auto top = [&](float x) {
            const float a = uToAzimuth(x / W_);
            while (i + 1 < n && ka[i + 1] <= a) ++i;
            float e;
            if (a <= ka[0])
                e = kh[0];
            else if (i + 1 >= n)
                e = kh[n - 1];
            else if (step)
                e = kh[i];
            else {
                const float t = (a - ka[i]) / (ka[i + 1] - ka[i]);
                e = lerpf(kh[i], kh[i + 1], t * t * (3.f - 2.f * t));
            }
            return baseY - P_.f * e * H_;
        };
        cv_.heightField(top, bottomY, pt);
    }

    // ---------------------------------------------------------------- ground and road
    void drawGround() {
        const float far = 3000.f;
        pa_.rectY(0.f, -far, far, -20.f, far, top(P_.groundCol), 1.f, Fog::Plane);
        if (P_.layout == Layout::Open) {  // fields beside the road
            Rng r(hashPair(key_, kRoad) ^ 0x77ull);
            static constexpr Col kField[] = {rgb(120, 140, 60), rgb(170, 150, 80), rgb(95, 120, 55), rgb(140, 110, 70),
                                             rgb(185, 175, 100)};
            for (int side = -1; side <= 1; side += 2) {
                float z = r.range(-10.f, 40.f);
                const float x0 = (side > 0 ? P_.roadR : P_.roadL) + static_cast<float>(side) * r.range(4.f, 20.f);
                while (z < 900.f) {
                    const float len = r.range(40.f, 200.f);
                    Col c = P_.snow ? P_.grassCol * r.range(0.95f, 1.02f) : mixc(r.pick(kField), P_.grassCol, 0.4f);
                    const float x1 = x0 + static_cast<float>(side) * r.range(60.f, 400.f);
                    pa_.rectY(0.f, std::min(x0, x1), std::max(x0, x1), z, z + len, top(c), 1.f, Fog::Plane);
                    z += len + r.range(0.f, 20.f);
                }
            }
        }
    }

    void drawRoad() {
        Rng r(hashPair(key_, kRoad));
        const float far = 3000.f, zn = -10.f;
        const Col asphalt = top(P_.asphalt);
        pa_.rectY(0.f, P_.roadL, P_.roadR, zn, far, asphalt, 1.f, Fog::Plane);
        // wear tracks in our lane and patches
        const float wear = r.range(0.03f, 0.12f);
        const Col track = asphalt * (P_.wet ? 0.7f : 0.85f);
        {
            const float c = P_.camX;
            for (int k = -1; k <= 1; k += 2)
                pa_.rectY(0.f, c + static_cast<float>(k) * 0.85f - 0.35f, c + static_cast<float>(k) * 0.85f + 0.35f, zn,
                          far, track, wear * 2.f, Fog::Plane);
        }
        const int patches = r.irange(0, 5);
        for (int i = 0; i < patches; ++i) {
            const float x = r.range(P_.roadL, P_.roadR), z = r.range(3.f, 80.f);
            const float w = r.range(0.8f, 3.f), l = r.range(1.f, 6.f);
            const float shadeK = r.range(0.75f, 1.2f), alpha = r.range(0.4f, 0.9f);
            pa_.rectY(0.f, x, std::min(P_.roadR, x + w), z, z + l, asphalt * shadeK, alpha, Fog::Plane);
        }
        // shoulders (open road)
        if (P_.shoulder > 0.f) {
            const Col gravel = top(mixc(P_.asphalt, rgb(150, 140, 120), 0.6f));
            pa_.rectY(0.f, P_.roadR - P_.shoulder + 0.2f, P_.roadR + 0.3f, zn, far, gravel, 0.8f, Fog::Plane);
            pa_.rectY(0.f, P_.roadL - 0.3f, P_.roadL + P_.shoulder - 0.2f, zn, far, gravel, 0.8f, Fog::Plane);
        }
        drawMarkings(r);
        if (P_.snow) {  // ploughed snow along the edges
            const Col snow = top(rgb(225, 228, 236));
            pa_.rectY(0.01f, P_.roadR - r.range(0.5f, 2.f), P_.roadR, zn, far, snow, 0.85f, Fog::Plane);
            pa_.rectY(0.01f, P_.roadL, P_.roadL + r.range(0.5f, 2.f), zn, far, snow, 0.85f, Fog::Plane);
        }
        if (P_.wet) {  // the sky reflected in a wet road, stronger towards the horizon
            V3 q[4] = {{P_.roadL, 0.f, 2.f}, {P_.roadR, 0.f, 2.f}, {P_.roadR, 0.f, far}, {P_.roadL, 0.f, far}};
            Paint g;
            g.grad = true;
            const float yb = static_cast<float>(cv_.H), yh = P_.v0 * yb;
            g.gb = -0.5f / (yb - yh);
            g.ga = 0.5f - g.gb * yh;
            pa_.poly(q, 4, P_.skyHor * (night() ? 1.f : 0.85f), 1.f, Fog::Plane, Blend::Normal, &g);
        }
        // kerbs, verges and sidewalks
        if (P_.layout == Layout::Open) return;
        for (int side = -1; side <= 1; side += 2) {
            const float s = static_cast<float>(side);
            const float kerb = side > 0 ? P_.roadR : P_.roadL;
            const float verge = side > 0 ? P_.vergeR : P_.vergeL;
            const float walk = side > 0 ? P_.walkR : P_.walkL;
            const float h = P_.kerbH;
            pa_.rectX(kerb, 0.f, h, zn, far, facing(P_.kerbCol, -s), 1.f, Fog::Plane);
            float x = kerb;
            if (verge > 0.f) {
                pa_.rectY(h, std::min(x, x + s * verge), std::max(x, x + s * verge), zn, far, top(P_.grassCol), 1.f,
                          Fog::Plane);
                x += s * verge;
            }
            pa_.rectY(h, std::min(x, x + s * walk), std::max(x, x + s * walk), zn, far, top(P_.walkCol), 1.f,
                      Fog::Plane);
            pa_.rectY(h, std::min(kerb, kerb + s * 0.18f), std::max(kerb, kerb + s * 0.18f), zn, far, top(P_.kerbCol),
                      1.f, Fog::Plane);
        }
    }

    void drawMarkings(Rng& r) {
        const float a = P_.markAlpha * (P_.snow ? 0.5f : 1.f);
        // retro-reflective paint shines back in our headlights after dark
        const float glow = night() ? 2.2f : (P_.tod == TimeOfDay::Dusk ? 1.3f : 1.f);
        const Col white = top(P_.markWhite) * glow, centre = top(P_.markCentre) * glow;
        const float w = r.range(0.1f, 0.16f);
        const float far = 3000.f;
        auto dashed = [&](float x, Col c) {
            const float period = P_.dashLen + P_.dashGap;
            float z = -P_.dashPhase;
            const float k = P_.f * P_.camH * static_cast<float>(cv_.H);  // screen y = v0*H + k / z
            for (; z < 160.f; z += period) {
                if (z > 1.f && k * (1.f / z - 1.f / (z + period)) < 2.f) break;
                pa_.rectY(0.005f, x - w * 0.5f, x + w * 0.5f, z, z + P_.dashLen, c, a);
            }
            // beyond: the average of the dashes, resolution independent
            pa_.rectY(0.005f, x - w * 0.5f, x + w * 0.5f, z, far, c, a * P_.dashLen / period, Fog::Plane);
        };
        auto solid = [&](float x, Col c) {
            pa_.rectY(0.005f, x - w * 0.5f, x + w * 0.5f, -10.f, far, c, a, Fog::Plane);
        };
        // edge lines
        const float edgeR = P_.roadR - P_.parkR - P_.shoulder, edgeL = P_.roadL + P_.parkL + P_.shoulder;
        if (P_.layout == Layout::Open || P_.parkR > 0.f || r.chance(0.6f)) solid(edgeR, white);
        if (P_.layout == Layout::Open || P_.parkL > 0.f || r.chance(0.6f)) solid(edgeL, white);
        // lane dividers and the centre line
        for (int i = 1; i < P_.lanesFwd; ++i) dashed(static_cast<float>(i) * P_.laneW, white);
        for (int i = 1; i < P_.lanesBack && !P_.oneWay; ++i) dashed(-static_cast<float>(i) * P_.laneW, white);
        if (!P_.oneWay) {
            if (P_.centreDouble) {
                solid(-w * 1.2f, centre);
                solid(w * 1.2f, centre);
            } else if (P_.centreSolid) {
                solid(0.f, centre);
            } else {
                dashed(0.f, centre);
            }
        }
        // a zebra crossing with a stop line
        if (P_.layout != Layout::Open && r.chance(0.25f)) {
            const float z = r.range(7.f, 30.f), len = r.range(2.5f, 4.f);
            for (float x = P_.roadL + 0.3f; x + 0.5f < P_.roadR; x += 1.f)
                pa_.rectY(0.006f, x, x + 0.5f, z, z + len, white, a);
            if (r.chance(0.7f)) pa_.rectY(0.006f, edgeL > 0.f ? edgeL : 0.f, edgeR, z - 2.f, z - 1.6f, white, a);
        }
    }

    // ---------------------------------------------------------------- shadows
    void shadowHull(const V2* pts, int n, float y) {  // convex hull in (x, z), drawn into the mask
        V2 p[16];
        std::copy(pts, pts + n, p);
        std::sort(p, p + n, [](V2 a, V2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
        V2 h[32];
        int k = 0;
        auto cross = [](V2 o, V2 a, V2 b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); };
        for (int i = 0; i < n; ++i) {
            while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0.f) --k;
            h[k++] = p[i];
        }
        for (int i = n - 2, t = k + 1; i >= 0; --i) {
            while (k >= t && cross(h[k - 2], h[k - 1], p[i]) <= 0.f) --k;
            h[k++] = p[i];
        }
        const int m = std::min(k - 1, 10);
        if (m < 3) return;
        V3 q[10];
        for (int i = 0; i < m; ++i) q[i] = {h[i].x, y, h[i].y};
        pa_.poly(q, m, {0.f, 0.f, 0.f}, 1.f, Fog::Plane, Blend::Shadow);
    }
    void boxShadow(float x0, float x1, float z0, float z1, float height) {
        const float dx = -P_.sunDir.x / P_.sunDir.y * height, dz = -P_.sunDir.z / P_.sunDir.y * height;
        const V2 p[8] = {{x0, z0},           {x1, z0},           {x1, z1},           {x0, z1},
                         {x0 + dx, z0 + dz}, {x1 + dx, z0 + dz}, {x1 + dx, z1 + dz}, {x0 + dx, z1 + dz}};
        shadowHull(p, 8, 0.01f);
    }

    void drawShadows() {
        if (!P_.sunny) return;
        std::fill(cv_.mask, cv_.mask + static_cast<size_t>(W()) * H(), 0.f);
        for (const Building& b : s_.buildings) {
            const float xo = b.x + static_cast<float>(b.side) * b.depth;
            boxShadow(std::min(b.x, xo), std::max(b.x, xo), b.z0, b.z1, b.H + (b.gable ? b.roofH * 0.5f : 0.f));
        }
        for (const Prop& p : s_.props) {
            const float sx = -P_.sunDir.x / P_.sunDir.y, sz = -P_.sunDir.z / P_.sunDir.y;
            switch (p.kind) {
                case Kind::Car:
                    boxShadow(p.x - 0.9f, p.x + 0.9f, p.z, p.z + p.a, p.b > 0.f ? 2.4f : 1.3f);
                    break;
                case Kind::Tree:
                case Kind::Conifer: {
                    if (P_.season == Season::Winter && p.kind == Kind::Tree) break;
                    const float c = p.a + p.b * 0.6f;
                    const float cx = p.x + sx * c, cz = p.z + sz * c;
                    V2 o[8];
                    for (int i = 0; i < 8; ++i)
                        o[i] = {cx + p.b * kCircle[i * 2][0],
                                cz + p.b * (1.f + 0.5f * std::fabs(sz)) * kCircle[i * 2][1]};
                    shadowHull(o, 8, 0.01f);
                    break;
                }
                case Kind::Lamp:
                case Kind::UtilityPole: {
                    const V2 o[4] = {{p.x - 0.1f, p.z},
                                     {p.x + 0.1f, p.z},
                                     {p.x + 0.1f + sx * p.a, p.z + sz * p.a},
                                     {p.x - 0.1f + sx * p.a, p.z + sz * p.a}};
                    shadowHull(o, 4, 0.01f);
                    break;
                }
                default:
                    break;
            }
        }
        // ground lit by ambient + sun; in shadow by ambient only
        const float l = P_.sunDir.y * 1.35f;
        const Col a = P_.ambient * 1.35f;
        const Col mult{a.r / (a.r + P_.sunCol.r * l), a.g / (a.g + P_.sunCol.g * l), a.b / (a.b + P_.sunCol.b * l)};
        const size_t n = static_cast<size_t>(W()) * H();
        for (size_t i = 0; i < n; ++i) {
            const float m = cv_.mask[i];
            if (m <= 0.f) continue;
            float* d = cv_.px + i * 3;
            d[0] *= 1.f + (mult.r - 1.f) * m;
            d[1] *= 1.f + (mult.g - 1.f) * m;
            d[2] *= 1.f + (mult.b - 1.f) * m;
        }
    }

    void drawHeadlights() {
        if (P_.tod == TimeOfDay::Day) return;
        // our low beams: overlapping soft pools along the road, wider and fainter with distance
        const float k = night() ? 1.f : 0.35f;
        const float x = cam_.worldX();
        const Col beam = rgb(255, 245, 225);
        pa_.groundPool(x, 6.f, 3.5f, beam, 0.16f * k);
        pa_.groundPool(x, 12.f, 6.f, beam, 0.14f * k);
        pa_.groundPool(x, 24.f, 11.f, beam, 0.08f * k);
    }

    // ---------------------------------------------------------------- buildings
    void drawBuilding(const Building& b) {
        const float s = static_cast<float>(b.side);
        const float xo = b.x + s * b.depth;  // back of the building
        const Col wall = facing(b.wall, -s);
        // end face towards the camera (with a gable when pitched)
        if (b.z0 > 0.f) {
            if (b.gable) {
                const V3 q[5] = {{b.x, 0.f, b.z0},
                                 {xo, 0.f, b.z0},
                                 {xo, b.H, b.z0},
                                 {0.5f * (b.x + xo), b.H + b.roofH, b.z0},
                                 {b.x, b.H, b.z0}};
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
            pa_.rectX(b.x - s * 0.3f, b.H - 0.3f, b.H, b.z0 - 0.3f, b.z1 + 0.3f, shade(b.roof, {-s, 0.f, 0.f}) * 0.7f,
                      1.f, Fog::Plane);
        } else {  // cornice
            pa_.rectX(b.x - s * 0.02f, b.H - 0.5f, b.H, b.z0, b.z1, wall * 0.8f, 1.f, Fog::Plane);
        }
        if (b.gable && b.fence) {  // hedge or fence along the lot front
            const float fx = streetEdge(b.side) + s * 0.3f;
            pa_.rectX(fx, 0.f, 1.0f, b.z0 - 2.f, b.z1 + 2.f, facing(b.fenceCol, -s), 1.f, Fog::Plane);
        }
    }

    /// Window grid of a facade as a texture (see FacadeTex).
    void facadeTexture(const Building& b, Col wall, FacadeTex& t) const {
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

    void drawShopFront(const Building& b) {
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
                const V3 q[4] = {{x, b.groundH - 1.1f, z0},
                                 {x, b.groundH - 1.1f, z1},
                                 {ax, b.groundH - 1.8f, z1},
                                 {ax, b.groundH - 1.8f, z0}};
                pa_.poly(q, 4, shade(b.shop, {-s * 0.5f, -0.5f, 0.f}), 1.f, Fog::Plane);
            }
        }
    }

    // ---------------------------------------------------------------- props
    void drawProp(const Prop& p) {
        // bounding sphere: cull what is out of view, and pick the level of detail from its size
        V3 c{p.x, 0.f, p.z};
        float r = 1.f;
        switch (p.kind) {
            case Kind::Tree:
                c.y = 0.5f * (p.a + 2.f * p.b);
                r = c.y + 0.3f;
                break;
            case Kind::Conifer:
                c.y = 0.8f * p.a;
                r = 0.8f * p.a + 0.3f;
                break;
            case Kind::Lamp:
                c.y = 0.5f * p.a;
                r = 0.5f * p.a + p.b;
                break;
            case Kind::UtilityPole:
                c.y = 0.5f * p.a;
                r = 20.f;
                c.z += 19.f;
                break;  // with its wires
            case Kind::Sign:
                c.y = 0.5f * (p.a + p.b);
                r = c.y + p.b;
                break;
            case Kind::Car:
                c.y = 0.8f;
                c.z += 0.5f * p.a;
                r = 0.5f * p.a + 0.5f;
                break;
            case Kind::Person:
                c.y = 0.5f * p.a;
                r = 0.5f * p.a + 0.2f;
                break;
        }
        // lights glow well beyond their object
        const float rp =
            pa_.screenRadius(c, P_.lightsOn && (p.kind == Kind::Lamp || p.kind == Kind::Car) ? r + 6.f : r);
        if (rp < 0.f) return;
        if (pa_.screenRadius(c, r) < 0.3f) {  // under ~0.1 px of area: only its light matters
            if (P_.lightsOn && p.kind == Kind::Car)
                carLights(p, p.x - 0.9f, p.x + 0.9f, p.z, p.b > 0.f ? 0.8f : 0.65f, p.var == 1);
            if (P_.lightsOn && p.kind == Kind::Lamp) lampLight(p);
            return;
        }
        switch (p.kind) {
            case Kind::Tree:
                drawTree(p, rp);
                break;
            case Kind::Conifer:
                drawConifer(p);
                break;
            case Kind::Lamp:
                drawLamp(p);
                break;
            case Kind::UtilityPole:
                drawUtilityPole(p);
                break;
            case Kind::Sign:
                drawSign(p);
                break;
            case Kind::Car:
                drawCar(p, rp);
                break;
            case Kind::Person:
                drawPerson(p);
                break;
        }
    }

    void drawTree(const Prop& p, float rp) {
        const Col bark = shade(rgb(70, 55, 45), {0.f, 0.f, -1.f});
        const float h = p.a, r = p.b;
        pa_.line({p.x, 0.f, p.z}, {p.x, h + r * 0.3f, p.z}, 0.28f, bark);
        if (P_.season == Season::Winter) {
            // bare: a haze of twigs, three forks of two branches each
            Rng rr(p.seed);
            const V3 crown = cam_.toCam({p.x, h + r * 0.8f, p.z});
            if (crown.z > kNear) {
                const V2 c = cam_.project(crown);
                Paint haze;
                haze.c = bark;
                haze.alpha = 0.3f;
                haze.m = cv_.fogAt(crown.z);
                const float k = cam_.f / crown.z;
                cv_.softEllipse(c.x, c.y, r * 1.1f * k * cam_.W, r * k * cam_.H, haze);
            }
            if (rp < 2.5f) return;
            for (int i = 0; i < 3; ++i) {
                const float y0 = h * rr.range(0.55f, 0.9f);
                const V3 a{p.x, y0, p.z};
                const V3 b{p.x + rr.range(-0.9f, 0.9f) * r, y0 + rr.range(0.5f, 0.9f) * r, p.z + rr.range(-0.3f, 0.3f)};
                pa_.line(a, b, 0.12f, bark);
                for (int j = 0; j < 2; ++j)
                    pa_.line(b, {b.x + rr.range(-0.6f, 0.6f) * r, b.y + rr.range(0.3f, 0.8f) * r, b.z}, 0.06f, bark);
            }
            return;
        }
        Rng rr(p.seed);
        const Col dark = shade(p.col, {0.f, 0.f, -1.f}) * 0.8f;
        const Col lit = shade(p.col, {P_.sunDir.x * 0.5f, 0.7f, -0.5f});
        if (rp < 2.5f) {  // a few pixels: one disc of the average colour
            pa_.disc({p.x, h + r * 0.75f, p.z}, r, r, mixc(dark, lit, 0.3f));
            return;
        }
        pa_.disc({p.x, h + r * 0.7f, p.z}, r, r * 0.95f, dark);
        for (int i = 0; i < 3; ++i) {
            const float dx = rr.range(-0.5f, 0.5f) * r, dy = rr.range(-0.1f, 0.5f) * r;
            const float rx = r * rr.range(0.45f, 0.7f), ry = r * rr.range(0.4f, 0.6f), t = rr.range(0.4f, 1.f);
            pa_.disc({p.x + dx, h + r * 0.7f + dy, p.z - 0.1f}, rx, ry, mixc(dark, lit, t));
        }
    }

    void drawConifer(const Prop& p) {
        const float h = p.a * 1.6f, r = p.b * 0.7f;
        const Col c = shade(mixc(P_.season == Season::Winter ? rgb(40, 70, 45) : p.col, rgb(35, 70, 40), 0.6f),
                            {0.f, 0.f, -1.f}) *
                      0.8f;
        pa_.line({p.x, 0.f, p.z}, {p.x, 1.f, p.z}, 0.3f, shade(rgb(70, 55, 45), {0.f, 0.f, -1.f}));
        const V3 q[3] = {{p.x - r, 0.6f, p.z}, {p.x + r, 0.6f, p.z}, {p.x, h, p.z}};
        pa_.poly(q, 3, c);
        if (P_.snow) {
            const V3 t[3] = {{p.x - r * 0.4f, h * 0.65f, p.z - 0.05f},
                             {p.x + r * 0.4f, h * 0.65f, p.z - 0.05f},
                             {p.x, h, p.z - 0.05f}};
            pa_.poly(t, 3, top(rgb(230, 232, 240)), 0.7f);
        }
    }

    void drawLamp(const Prop& p) {
        const float s = static_cast<float>(p.side);
        const Col metal = shade(rgb(80, 84, 90), {-s, 0.f, 0.f});
        const float h = p.a, arm = p.b;
        pa_.line({p.x, 0.f, p.z}, {p.x, h, p.z}, 0.17f, metal);
        const V3 head{p.x - s * arm, h + 0.15f, p.z};
        pa_.line({p.x, h - 0.05f, p.z}, head, 0.09f, metal);
        pa_.line({head.x + s * 0.25f, head.y - 0.05f, head.z}, {head.x - s * 0.35f, head.y - 0.1f, head.z}, 0.2f,
                 metal * 0.8f);
        lampLight(p);
    }

    void lampLight(const Prop& p) {
        const float s = static_cast<float>(p.side);
        const V3 head{p.x - s * p.b, p.a + 0.15f, p.z};
        if (P_.lightsOn) {
            const float k = night() ? 1.f : 0.5f;
            pa_.glow({head.x, head.y - 0.2f, head.z}, 0.35f, rgb(255, 250, 235), 1.2f * k);
            pa_.glow({head.x, head.y - 0.2f, head.z}, 1.4f, P_.lampCol, 0.35f * k);
            pa_.groundPool(head.x, head.z, 5.f, P_.lampCol, 0.3f * k);
            if (P_.wet) {  // reflection streak on the wet road
                const V3 g = cam_.toCam({head.x, 0.f, head.z}), l = cam_.toCam(head);
                if (g.z > 1.f) {
                    const V2 pg = cam_.project(g), pl = cam_.project(l);
                    Paint pt;
                    pt.blend = Blend::Add;
                    pt.c = P_.lampCol;
                    pt.alpha = 0.2f * k;
                    pt.m = cv_.fogAt(g.z);
                    const float len = std::fabs(pg.y - pl.y);
                    cv_.softEllipse(pg.x, pg.y + 0.3f * len, 0.25f * cam_.f / g.z * cam_.W, 0.55f * len, pt);
                }
            }
        }
    }

    void drawUtilityPole(const Prop& p) {
        const float s = static_cast<float>(p.side);
        const Col wood = shade(rgb(92, 74, 58), {-s, 0.f, 0.f});
        const float h = p.a;
        pa_.line({p.x, 0.f, p.z}, {p.x, h, p.z}, 0.26f, wood);
        pa_.line({p.x - 1.1f, h - 0.4f, p.z}, {p.x + 1.1f, h - 0.4f, p.z}, 0.12f, wood);
        // wires to the next pole further away
        const float spacing = 38.f;
        const Col wire = night() ? rgb(10, 10, 12) : rgb(35, 35, 38);
        for (int i = -1; i <= 1; i += 2) {
            const float wx = p.x + static_cast<float>(i) * 1.f;
            pa_.line({wx, h - 0.35f, p.z}, {wx, h - 1.2f, p.z + spacing * 0.5f}, 0.03f, wire, 0.9f);
            pa_.line({wx, h - 1.2f, p.z + spacing * 0.5f}, {wx, h - 0.35f, p.z + spacing}, 0.03f, wire, 0.9f);
        }
    }

    void drawSign(const Prop& p) {
        const Col metal = shade(rgb(140, 142, 146), {0.f, 0.f, -1.f});
        const float h = p.a, sz = p.b;
        pa_.line({p.x, 0.f, p.z}, {p.x, h, p.z}, 0.07f, metal);
        const float cy = h + sz * 0.5f;
        const V3 c{p.x, cy, p.z - 0.05f};
        const float k = night() ? 2.2f : 1.f;  // retro-reflective
        switch (p.var) {
            case 0:  // prohibition: red ring, white disc
                pa_.disc(c, sz * 0.5f, sz * 0.5f, front(rgb(200, 30, 30)) * k);
                pa_.disc({c.x, c.y, c.z - 0.01f}, sz * 0.36f, sz * 0.36f, front(rgb(235, 235, 235)) * k);
                break;
            case 1:  // blue square
                pa_.rectZ(c.z, p.x - sz * 0.5f, p.x + sz * 0.5f, cy - sz * 0.5f, cy + sz * 0.5f,
                          front(rgb(30, 70, 170)) * k);
                pa_.rectZ(c.z - 0.01f, p.x - sz * 0.15f, p.x + sz * 0.15f, cy - sz * 0.3f, cy + sz * 0.3f,
                          front(rgb(235, 235, 235)) * k);
                break;
            case 2: {  // warning diamond
                const V3 q[4] = {{p.x, cy - sz * 0.6f, c.z},
                                 {p.x + sz * 0.6f, cy, c.z},
                                 {p.x, cy + sz * 0.6f, c.z},
                                 {p.x - sz * 0.6f, cy, c.z}};
                pa_.poly(q, 4, front(rgb(235, 190, 30)) * k);
                break;
            }
            case 3:  // street name
                pa_.rectZ(c.z, p.x - sz, p.x + sz, cy, cy + sz * 0.45f, front(rgb(30, 110, 60)) * k);
                break;
            default: {  // stop-like octagon
                V3 q[8];
                for (int i = 0; i < 8; ++i)
                    q[i] = {p.x + sz * 0.5f * kCircle[i * 2 + 1][0], cy + sz * 0.5f * kCircle[i * 2 + 1][1], c.z};
                pa_.poly(q, 8, front(rgb(190, 25, 25)) * k);
                break;
            }
        }
    }

    void drawPerson(const Prop& p) {
        const float h = p.a;
        const Col clothes = front(p.col);
        const Col legs = front(rgb(40, 42, 50));
        pa_.line({p.x, 0.f, p.z}, {p.x, h * 0.5f, p.z}, 0.32f, legs);
        pa_.line({p.x, h * 0.48f, p.z}, {p.x, h * 0.84f, p.z}, 0.44f, clothes);
        pa_.disc({p.x, h * 0.92f, p.z}, 0.11f, 0.13f, front(rgb(200, 160, 130)));
    }

    void drawCar(const Prop& p, float rp) {
        const float x0 = p.x - 0.9f, x1 = p.x + 0.9f, z0 = p.z, z1 = p.z + p.a;
        const bool van = p.b > 0.f, facingUs = p.var == 1;
        const float bodyTop = van ? 2.1f : 0.95f, roofY = van ? 2.25f : 1.45f;
        const float camX = cam_.worldX();
        if (rp < 6.f) {  // a few pixels: body boxes of the average colours
            const int side = camX < x0 ? -1 : (camX > x1 ? 1 : 0);
            const Col glass = rgb(38, 45, 55);
            if (rp >= 2.f)
                pa_.rectY(0.012f, x0 - 0.1f, x1 + 0.1f, z0 - 0.15f, z1 + 0.15f, top(P_.asphalt) * 0.25f, 0.75f);
            if (side != 0) {
                const float xs = side < 0 ? x0 : x1;
                pa_.rectX(xs, 0.2f, bodyTop, z0, z1, facing(p.col, static_cast<float>(side)) * 0.8f);
                if (!van) pa_.rectX(xs, bodyTop, roofY, z0 + 1.2f, z1 - 1.3f, facing(glass, static_cast<float>(side)));
            }
            pa_.rectZ(z0, x0, x1, 0.2f, bodyTop, front(p.col) * 0.8f);
            if (!van) {
                pa_.rectY(bodyTop, x0, x1, z0, z1, top(p.col) * 0.95f);
                pa_.quad({x0 + 0.15f, bodyTop, z0 + 1.f}, {x1 - 0.15f, bodyTop, z0 + 1.f},
                         {x1 - 0.15f, roofY, z0 + 1.6f}, {x0 + 0.15f, roofY, z0 + 1.6f}, mixc(glass, top(p.col), 0.3f));
            }
            carLights(p, x0, x1, z0, van ? 0.8f : 0.65f, facingUs);
            return;
        }
        // contact shadow
        pa_.rectY(0.012f, x0 - 0.1f, x1 + 0.1f, z0 - 0.15f, z1 + 0.15f, top(P_.asphalt) * 0.25f, 0.75f);
        // the visible side
        const int side = camX < x0 ? -1 : (camX > x1 ? 1 : 0);
        const float xs = side < 0 ? x0 : x1;
        const Col body = p.col;
        if (side != 0) {
            pa_.rectX(xs, 0.28f, bodyTop, z0, z1, facing(body, static_cast<float>(side)));
            pa_.rectX(xs, 0.2f, 0.45f, z0 + 0.1f, z1 - 0.1f, facing(rgb(30, 30, 32), static_cast<float>(side)));
            for (int i = 0; i < 2; ++i) {  // wheels
                const float wz = i == 0 ? z0 + 0.8f : z1 - 0.85f;
                V3 q[8];
                for (int k = 0; k < 8; ++k)
                    q[k] = {xs, 0.33f + 0.33f * kCircle[k * 2][1], wz + 0.33f * kCircle[k * 2][0]};
                pa_.poly(q, 8, rgb(12, 12, 14));
            }
            if (van) {
                pa_.rectX(xs, 1.35f, 1.95f, z0 + 0.4f, z0 + 1.6f, facing(rgb(30, 36, 44), static_cast<float>(side)));
            } else {  // cabin side glass
                const V3 q[4] = {
                    {xs, bodyTop, z0 + 0.9f}, {xs, bodyTop, z1 - 1.0f}, {xs, roofY, z1 - 1.6f}, {xs, roofY, z0 + 1.5f}};
                const float in = side < 0 ? 0.12f : -0.12f;
                V3 qi[4];
                for (int k = 0; k < 4; ++k) qi[k] = {q[k].x + in, q[k].y, q[k].z};
                pa_.poly(qi, 4, facing(rgb(35, 42, 52), static_cast<float>(side)));
            }
        }
        // end towards the camera
        pa_.rectZ(z0, x0, x1, 0.25f, bodyTop, front(body) * 0.92f);
        pa_.rectZ(z0 - 0.01f, x0, x1, 0.25f, 0.42f, front(rgb(30, 30, 32)));
        pa_.rectZ(z0 - 0.01f, p.x - 0.25f, p.x + 0.25f, 0.45f, 0.58f, front(rgb(220, 220, 210)));
        const Col lamp = facingUs ? rgb(235, 235, 225) : rgb(200, 30, 25);
        const float ly0 = van ? 0.8f : 0.65f, ly1 = ly0 + 0.15f;
        pa_.rectZ(z0 - 0.02f, x0 + 0.08f, x0 + 0.38f, ly0, ly1, front(lamp));
        pa_.rectZ(z0 - 0.02f, x1 - 0.38f, x1 - 0.08f, ly0, ly1, front(lamp));
        if (!van) {
            // top of the lower body, glass, roof
            pa_.rectY(bodyTop, x0, x1, z0, z1, top(body) * 0.95f);
            const float gz0 = facingUs ? z0 + 1.1f : z0 + 0.9f, gz1 = facingUs ? z0 + 1.8f : z0 + 1.5f;
            pa_.quad({x0 + 0.12f, bodyTop, gz0}, {x1 - 0.12f, bodyTop, gz0}, {x1 - 0.2f, roofY, gz1},
                     {x0 + 0.2f, roofY, gz1}, shade(rgb(40, 48, 58), {0.f, 0.6f, -0.8f}) * 1.2f);
            pa_.rectY(roofY, x0 + 0.2f, x1 - 0.2f, gz1, z1 - 1.6f, P_.snow ? top(rgb(230, 232, 240)) : top(body));
        } else {
            pa_.rectZ(z0 - 0.01f, x0 + 0.15f, x1 - 0.15f, 1.35f, 1.9f, front(rgb(35, 42, 52)));
        }
        carLights(p, x0, x1, z0, ly0, facingUs);
    }

    void carLights(const Prop& p, float x0, float x1, float z0, float ly0, bool facingUs) {
        if (!P_.lightsOn) return;
        const bool on = p.side == 0 || hashUnit(p.seed) < 0.15f;  // moving cars, and a few parked ones
        if (!on) return;
        const Col g = facingUs ? rgb(255, 245, 220) : rgb(255, 40, 30);
        const float k = facingUs ? 1.2f : 0.8f;
        const float yy = ly0 + 0.075f;
        pa_.glow({x0 + 0.23f, yy, z0 - 0.1f}, facingUs ? 0.6f : 0.35f, g, k);
        pa_.glow({x1 - 0.23f, yy, z0 - 0.1f}, facingUs ? 0.6f : 0.35f, g, k);
        if (P_.wet) pa_.groundPool(p.x, z0 - 2.f, 2.5f, g, 0.25f);
    }

    void drawHood() {
        if (!P_.hood) return;
        const float W_ = static_cast<float>(W()), H_ = static_cast<float>(H());
        const float ry = 0.3f;
        Paint pt;
        pt.c = P_.hoodCol * (night() ? 0.12f : (P_.tod == TimeOfDay::Dusk ? 0.45f : 0.8f));
        cv_.ellipse(0.5f * W_, (1.f - P_.hoodH + ry) * H_, 0.95f * W_, ry * H_, pt);
        Paint hl;  // the sky reflected along the hood's crest
        hl.c = P_.skyHor;
        hl.alpha = night() ? 0.1f : 0.35f;
        cv_.softEllipse(0.5f * W_, (1.f - P_.hoodH + 0.02f) * H_, 0.5f * W_, 0.025f * H_, hl);
    }
};

constexpr size_t kKeepScratchPixels = 512 * 512;

Scratch& scratch() {
    thread_local Scratch s;
    return s;
}

uint64_t sceneKey(uint64_t seed, uint64_t index) { return hashPair(hashPair(seed, 0x53747265657473ull), index); }

}  // namespace

SyntheticStreets::SyntheticStreets(uint64_t seed) : seed_(seed) {}

SyntheticStreets::SceneInfo SyntheticStreets::describe(uint64_t index) const {
    const Params P = makeParams(sceneKey(seed_, index));
    SceneInfo info{};
    info.timeOfDay = P.tod;
    info.weather = P.weather;
    info.season = P.season;
    info.layout = P.layout;
    info.snow = P.snow;
    info.vanishingX = 0.5f - P.f * P.tanYaw;
    info.horizonY = P.v0;
    info.cameraHeight = P.camH;
    return info;
}

void SyntheticStreets::render(uint64_t index, int width, int height, uint8_t* rgbOut) const {
    if (width < 1 || height < 1 || width > kMaxSize || height > kMaxSize)
        throw ConfigError("SyntheticStreets: image size " + std::to_string(width) + "x" + std::to_string(height) +
                          " is outside 1.." + std::to_string(kMaxSize));
    const uint64_t key = sceneKey(seed_, index);
    const Params P = makeParams(key);
    const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
    // training-sized frames reuse this thread's buffers; a rare large one gets its own, freed after
    Scratch local;
    Scratch& s = n <= kKeepScratchPixels ? scratch() : local;
    if (s.px.size() < n * 3) s.px.resize(n * 3);
    if (s.mask.size() < n) s.mask.resize(n);
    if (s.cov.size() < static_cast<size_t>(width) + 2) s.cov.assign(static_cast<size_t>(width) + 2, 0.f);
    if (s.buildings.capacity() < 128) s.buildings.reserve(128);
    if (s.props.capacity() < 512) s.props.reserve(512);

    Canvas cv;
    cv.W = width;
    cv.H = height;
    cv.px = s.px.data();
    cv.mask = s.mask.data();
    cv.cov = s.cov.data();
    cv.fog = P.fog;
    cv.fogD = P.fogD;
    Cam cam{P.camX,
            P.camH,
            P.f,
            P.v0,
            P.cyaw,
            P.syaw,
            P.mirror,
            static_cast<float>(width),
            static_cast<float>(height),
            0.5f * static_cast<float>(width + height)};
    SceneRenderer(P, key, cv, cam, s).draw();

    // camera response: saturation, exposure and white balance, vignette; then 8-bit RGB
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
            dst[0] = static_cast<uint8_t>(std::min(std::max(r, 0.f), 255.f) + 0.5f);
            dst[1] = static_cast<uint8_t>(std::min(std::max(g, 0.f), 255.f) + 0.5f);
            dst[2] = static_cast<uint8_t>(std::min(std::max(b, 0.f), 255.f) + 0.5f);
        }
    }
}

std::vector<uint8_t> SyntheticStreets::render(uint64_t index, int width, int height) const {
    if (width < 1 || height < 1 || width > kMaxSize || height > kMaxSize)
        throw ConfigError("SyntheticStreets: image size " + std::to_string(width) + "x" + std::to_string(height) +
                          " is outside 1.." + std::to_string(kMaxSize));
    std::vector<uint8_t> out(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
    render(index, width, height, out.data());
    return out;
}

}  // namespace streetgan
