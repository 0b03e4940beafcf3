#include "base/synthetic/VegetationPainter.h"

#include "base/synthetic/Camera.h"
#include "base/synthetic/Rng.h"

namespace streetgan::synthetic {

void VegetationPainter::drawTree(const Prop& p, float rp) {
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
            for (int j = 0; j < 2; ++j) pa_.line(b, {b.x + rr.range(-0.6f, 0.6f) * r, b.y + rr.range(0.3f, 0.8f) * r, b.z}, 0.06f, bark);
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

void VegetationPainter::drawConifer(const Prop& p) {
    const float h = p.a * 1.6f, r = p.b * 0.7f;
    const Col c = shade(mixc(P_.season == Season::Winter ? rgb(40, 70, 45) : p.col, rgb(35, 70, 40), 0.6f), {0.f, 0.f, -1.f}) * 0.8f;
    pa_.line({p.x, 0.f, p.z}, {p.x, 1.f, p.z}, 0.3f, shade(rgb(70, 55, 45), {0.f, 0.f, -1.f}));
    const V3 q[3] = {{p.x - r, 0.6f, p.z}, {p.x + r, 0.6f, p.z}, {p.x, h, p.z}};
    pa_.poly(q, 3, c);
    if (P_.snow) {
        const V3 t[3] = {{p.x - r * 0.4f, h * 0.65f, p.z - 0.05f}, {p.x + r * 0.4f, h * 0.65f, p.z - 0.05f}, {p.x, h, p.z - 0.05f}};
        pa_.poly(t, 3, top(rgb(230, 232, 240)), 0.7f);
    }
}

}  // namespace streetgan::synthetic
