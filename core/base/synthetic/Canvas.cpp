#include "base/synthetic/Canvas.h"

#include <algorithm>
#include <cmath>

namespace streetgan::synthetic {

namespace {

constexpr int kSub = 4;  // sub-scanlines per pixel row

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

}  // namespace

void Canvas::blendRow(int row, int lo, int hi, const Paint& pt) {
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

void Canvas::facadeRow(const FacadeTex& t, int row, int lo, int hi, float a0, float* d) {
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
            const float cz =
                zb - za > 1e-4f ? (pulseIntegral(zb, t.oz, t.ipz, t.pz, t.wz, t.zEnd) - pulseIntegral(za, t.oz, t.ipz, t.pz, t.wz, t.zEnd)) / (zb - za) : 0.f;
            const float cy = (pulseIntegral(ytop, t.oy, t.ipy, t.py, t.wy, t.yEnd) - pulseIntegral(ybot, t.oy, t.ipy, t.py, t.wy, t.yEnd)) / (ytop - ybot);
            const float wc = cz * cy;
            Col s = t.wall;
            if (wc > 0.f) {
                Col win = t.winAvg;
                if (zb - za < 0.7f * t.pz && ytop - ybot < 0.7f * t.py) {  // one window: its own colour
                    const int kz = ifloor((0.5f * (za + zb) - t.oz) * t.ipz);
                    const int ky = ifloor((0.5f * (ytop + ybot) - t.oy) * t.ipy);
                    win = windowColourFor(t.glass, t.tod, t.litP, hashPair(t.seed, static_cast<uint64_t>(ky) * 256 + static_cast<uint64_t>(kz)));
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

void Canvas::fillConvex(const V2* p, int n, const Paint& pt) {
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
        if (fr + 0.125f >= ymin && fr + 0.875f < ymax && (ca.at(fr + 0.125f), cb.at(fr + 0.125f), true) && p[ca.next].y > fr + 0.875f &&
            p[cb.next].y > fr + 0.875f) {
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

void Canvas::ellipse(float cx, float cy, float rx, float ry, const Paint& pt) {
    V2 p[16];
    const int step = rx + ry < 8.f ? 2 : 1;  // an octagon is exact enough under ~4 px radius
    int n = 0;
    for (int i = 0; i < 16; i += step) p[n++] = {cx + rx * kCircle[i][0], cy + ry * kCircle[i][1]};
    fillConvex(p, n, pt);
}

void Canvas::softEllipse(float cx, float cy, float rx, float ry, const Paint& pt) {
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
    if (cx + rx <= 0.f || cx - rx >= static_cast<float>(W) || cy + ry <= 0.f || cy - ry >= static_cast<float>(H)) return;
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

}  // namespace streetgan::synthetic
