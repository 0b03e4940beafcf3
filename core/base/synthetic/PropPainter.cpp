#include "base/synthetic/PropPainter.h"

namespace streetgan::synthetic {

void PropPainter::draw(const Prop& p) {
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
    const float rp = pa_.screenRadius(c, P_.lightsOn && (p.kind == Kind::Lamp || p.kind == Kind::Car) ? r + 6.f : r);
    if (rp < 0.f) return;
    if (pa_.screenRadius(c, r) < 0.3f) {  // under ~0.1 px of area: only its light matters
        if (P_.lightsOn && p.kind == Kind::Car) vehicles_.carLights(p, p.x - 0.9f, p.x + 0.9f, p.z, p.b > 0.f ? 0.8f : 0.65f, p.var == 1);
        if (P_.lightsOn && p.kind == Kind::Lamp) furniture_.lampLight(p);
        return;
    }
    switch (p.kind) {
        case Kind::Tree:
            vegetation_.drawTree(p, rp);
            break;
        case Kind::Conifer:
            vegetation_.drawConifer(p);
            break;
        case Kind::Lamp:
            furniture_.drawLamp(p);
            break;
        case Kind::UtilityPole:
            furniture_.drawUtilityPole(p);
            break;
        case Kind::Sign:
            furniture_.drawSign(p);
            break;
        case Kind::Car:
            vehicles_.drawCar(p, rp);
            break;
        case Kind::Person:
            drawPerson(p);
            break;
    }
}

void PropPainter::drawPerson(const Prop& p) {
    const float h = p.a;
    const Col clothes = front(p.col);
    const Col legs = front(rgb(40, 42, 50));
    pa_.line({p.x, 0.f, p.z}, {p.x, h * 0.5f, p.z}, 0.32f, legs);
    pa_.line({p.x, h * 0.48f, p.z}, {p.x, h * 0.84f, p.z}, 0.44f, clothes);
    pa_.disc({p.x, h * 0.92f, p.z}, 0.11f, 0.13f, front(rgb(200, 160, 130)));
}

}  // namespace streetgan::synthetic
