#include "base/synthetic/Painter.h"

#include <algorithm>
#include <cmath>

namespace streetgan::synthetic {

namespace {

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

}  // namespace

void Painter::poly(const V3* w, int n, Col c, float alpha, Fog fm, Blend blend, const Paint* base) {
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

void Painter::line(V3 a, V3 b, float width, Col c, float alpha, Blend blend) {
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
    const V2 q[4] = {{pa.x + nx * ha, pa.y + ny * ha}, {pb.x + nx * hb, pb.y + ny * hb}, {pb.x - nx * hb, pb.y - ny * hb}, {pa.x - nx * ha, pa.y - ny * ha}};
    Paint pt;
    pt.c = c;
    pt.alpha = alpha;
    pt.blend = blend;
    pt.m = cv.fogAt(0.5f * (ca.z + cb.z));
    cv.fillConvex(q, 4, pt);
}

float Painter::screenRadius(V3 c, float r) const {
    const V3 cc = cam.toCam(c);
    if (cc.z < -r) return -1.f;
    if (cc.z < r + kNear) return 1e9f;
    const V2 p = cam.project(cc);
    const float rp = r * cam.f / cc.z * cam.pxScale;
    const float m = 1.5f * rp;
    if (p.x + m < 0.f || p.x - m > cam.W || p.y + m < 0.f || p.y - m > cam.H) return -1.f;
    return rp;
}

void Painter::disc(V3 centre, float rx, float ry, Col c, float alpha) {
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

void Painter::glow(V3 centre, float r, Col c, float intensity) {
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

void Painter::groundPool(float x, float z, float r, Col c, float intensity) {
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

}  // namespace streetgan::synthetic
