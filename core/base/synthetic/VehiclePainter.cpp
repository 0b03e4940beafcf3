#include "base/synthetic/VehiclePainter.h"

#include "base/synthetic/Rng.h"

namespace streetgan::synthetic {

void VehiclePainter::drawCar(const Prop& p, float rp) {
    const float x0 = p.x - 0.9f, x1 = p.x + 0.9f, z0 = p.z, z1 = p.z + p.a;
    const bool van = p.b > 0.f, facingUs = p.var == 1;
    const float bodyTop = van ? 2.1f : 0.95f, roofY = van ? 2.25f : 1.45f;
    const float camX = cam_.worldX();
    if (rp < 6.f) {  // a few pixels: body boxes of the average colours
        const int side = camX < x0 ? -1 : (camX > x1 ? 1 : 0);
        const Col glass = rgb(38, 45, 55);
        if (rp >= 2.f) pa_.rectY(0.012f, x0 - 0.1f, x1 + 0.1f, z0 - 0.15f, z1 + 0.15f, top(P_.asphalt) * 0.25f, 0.75f);
        if (side != 0) {
            const float xs = side < 0 ? x0 : x1;
            pa_.rectX(xs, 0.2f, bodyTop, z0, z1, facing(p.col, static_cast<float>(side)) * 0.8f);
            if (!van) pa_.rectX(xs, bodyTop, roofY, z0 + 1.2f, z1 - 1.3f, facing(glass, static_cast<float>(side)));
        }
        pa_.rectZ(z0, x0, x1, 0.2f, bodyTop, front(p.col) * 0.8f);
        if (!van) {
            pa_.rectY(bodyTop, x0, x1, z0, z1, top(p.col) * 0.95f);
            pa_.quad({x0 + 0.15f, bodyTop, z0 + 1.f}, {x1 - 0.15f, bodyTop, z0 + 1.f}, {x1 - 0.15f, roofY, z0 + 1.6f}, {x0 + 0.15f, roofY, z0 + 1.6f},
                     mixc(glass, top(p.col), 0.3f));
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
            for (size_t k = 0; k < 8; ++k) q[k] = {xs, 0.33f + 0.33f * kCircle[k * 2][1], wz + 0.33f * kCircle[k * 2][0]};
            pa_.poly(q, 8, rgb(12, 12, 14));
        }
        if (van) {
            pa_.rectX(xs, 1.35f, 1.95f, z0 + 0.4f, z0 + 1.6f, facing(rgb(30, 36, 44), static_cast<float>(side)));
        } else {  // cabin side glass
            const V3 q[4] = {{xs, bodyTop, z0 + 0.9f}, {xs, bodyTop, z1 - 1.0f}, {xs, roofY, z1 - 1.6f}, {xs, roofY, z0 + 1.5f}};
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
        pa_.quad({x0 + 0.12f, bodyTop, gz0}, {x1 - 0.12f, bodyTop, gz0}, {x1 - 0.2f, roofY, gz1}, {x0 + 0.2f, roofY, gz1},
                 shade(rgb(40, 48, 58), {0.f, 0.6f, -0.8f}) * 1.2f);
        pa_.rectY(roofY, x0 + 0.2f, x1 - 0.2f, gz1, z1 - 1.6f, P_.snow ? top(rgb(230, 232, 240)) : top(body));
    } else {
        pa_.rectZ(z0 - 0.01f, x0 + 0.15f, x1 - 0.15f, 1.35f, 1.9f, front(rgb(35, 42, 52)));
    }
    carLights(p, x0, x1, z0, ly0, facingUs);
}

void VehiclePainter::carLights(const Prop& p, float x0, float x1, float z0, float ly0, bool facingUs) {
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

void VehiclePainter::drawHeadlights() {
    if (P_.tod == TimeOfDay::Day) return;
    // our low beams: overlapping soft pools along the road, wider and fainter with distance
    const float k = night() ? 1.f : 0.35f;
    const float x = cam_.worldX();
    const Col beam = rgb(255, 245, 225);
    pa_.groundPool(x, 6.f, 3.5f, beam, 0.16f * k);
    pa_.groundPool(x, 12.f, 6.f, beam, 0.14f * k);
    pa_.groundPool(x, 24.f, 11.f, beam, 0.08f * k);
}

void VehiclePainter::drawHood() {
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

}  // namespace streetgan::synthetic
