#include "base/synthetic/ShadowPainter.h"

#include <algorithm>
#include <cmath>

namespace streetgan::synthetic {

void ShadowPainter::shadowHull(const V2* pts, int n, float y) {
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

void ShadowPainter::boxShadow(float x0, float x1, float z0, float z1, float height) {
    const float dx = -P_.sunDir.x / P_.sunDir.y * height, dz = -P_.sunDir.z / P_.sunDir.y * height;
    const V2 p[8] = {{x0, z0}, {x1, z0}, {x1, z1}, {x0, z1}, {x0 + dx, z0 + dz}, {x1 + dx, z0 + dz}, {x1 + dx, z1 + dz}, {x0 + dx, z1 + dz}};
    shadowHull(p, 8, 0.01f);
}

void ShadowPainter::draw(const std::vector<Building>& buildings, const std::vector<Prop>& props) {
    if (!P_.sunny) return;
    std::fill(cv_.mask, cv_.mask + static_cast<size_t>(W()) * H(), 0.f);
    for (const Building& b : buildings) {
        const float xo = b.x + static_cast<float>(b.side) * b.depth;
        boxShadow(std::min(b.x, xo), std::max(b.x, xo), b.z0, b.z1, b.H + (b.gable ? b.roofH * 0.5f : 0.f));
    }
    for (const Prop& p : props) {
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
                for (size_t i = 0; i < 8; ++i) o[i] = {cx + p.b * kCircle[i * 2][0], cz + p.b * (1.f + 0.5f * std::fabs(sz)) * kCircle[i * 2][1]};
                shadowHull(o, 8, 0.01f);
                break;
            }
            case Kind::Lamp:
            case Kind::UtilityPole: {
                const V2 o[4] = {{p.x - 0.1f, p.z}, {p.x + 0.1f, p.z}, {p.x + 0.1f + sx * p.a, p.z + sz * p.a}, {p.x - 0.1f + sx * p.a, p.z + sz * p.a}};
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

}  // namespace streetgan::synthetic
