#include "base/synthetic/StreetFurniturePainter.h"

#include <cmath>

namespace streetgan::synthetic {

void StreetFurniturePainter::drawLamp(const Prop& p) {
    const float s = static_cast<float>(p.side);
    const Col metal = shade(rgb(80, 84, 90), {-s, 0.f, 0.f});
    const float h = p.a, arm = p.b;
    pa_.line({p.x, 0.f, p.z}, {p.x, h, p.z}, 0.17f, metal);
    const V3 head{p.x - s * arm, h + 0.15f, p.z};
    pa_.line({p.x, h - 0.05f, p.z}, head, 0.09f, metal);
    pa_.line({head.x + s * 0.25f, head.y - 0.05f, head.z}, {head.x - s * 0.35f, head.y - 0.1f, head.z}, 0.2f, metal * 0.8f);
    lampLight(p);
}

void StreetFurniturePainter::lampLight(const Prop& p) {
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

void StreetFurniturePainter::drawUtilityPole(const Prop& p) {
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

void StreetFurniturePainter::drawSign(const Prop& p) {
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
            pa_.rectZ(c.z, p.x - sz * 0.5f, p.x + sz * 0.5f, cy - sz * 0.5f, cy + sz * 0.5f, front(rgb(30, 70, 170)) * k);
            pa_.rectZ(c.z - 0.01f, p.x - sz * 0.15f, p.x + sz * 0.15f, cy - sz * 0.3f, cy + sz * 0.3f, front(rgb(235, 235, 235)) * k);
            break;
        case 2: {  // warning diamond
            const V3 q[4] = {{p.x, cy - sz * 0.6f, c.z}, {p.x + sz * 0.6f, cy, c.z}, {p.x, cy + sz * 0.6f, c.z}, {p.x - sz * 0.6f, cy, c.z}};
            pa_.poly(q, 4, front(rgb(235, 190, 30)) * k);
            break;
        }
        case 3:  // street name
            pa_.rectZ(c.z, p.x - sz, p.x + sz, cy, cy + sz * 0.45f, front(rgb(30, 110, 60)) * k);
            break;
        default: {  // stop-like octagon
            V3 q[8];
            for (int i = 0; i < 8; ++i) q[i] = {p.x + sz * 0.5f * kCircle[i * 2 + 1][0], cy + sz * 0.5f * kCircle[i * 2 + 1][1], c.z};
            pa_.poly(q, 8, front(rgb(190, 25, 25)) * k);
            break;
        }
    }
}

}  // namespace streetgan::synthetic
