#include "base/synthetic/RoadPainter.h"

#include <algorithm>

namespace streetgan::synthetic {

void RoadPainter::drawGround() {
    const float far = 3000.f;
    pa_.rectY(0.f, -far, far, -20.f, far, top(P_.groundCol), 1.f, Fog::Plane);
    if (P_.layout == Layout::Open) {  // fields beside the road
        Rng r(hashPair(key_, kRoad) ^ 0x77ull);
        static constexpr Col kField[] = {rgb(120, 140, 60), rgb(170, 150, 80), rgb(95, 120, 55), rgb(140, 110, 70), rgb(185, 175, 100)};
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

void RoadPainter::drawRoad() {
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
            pa_.rectY(0.f, c + static_cast<float>(k) * 0.85f - 0.35f, c + static_cast<float>(k) * 0.85f + 0.35f, zn, far, track, wear * 2.f, Fog::Plane);
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
            pa_.rectY(h, std::min(x, x + s * verge), std::max(x, x + s * verge), zn, far, top(P_.grassCol), 1.f, Fog::Plane);
            x += s * verge;
        }
        pa_.rectY(h, std::min(x, x + s * walk), std::max(x, x + s * walk), zn, far, top(P_.walkCol), 1.f, Fog::Plane);
        pa_.rectY(h, std::min(kerb, kerb + s * 0.18f), std::max(kerb, kerb + s * 0.18f), zn, far, top(P_.kerbCol), 1.f, Fog::Plane);
    }
}

void RoadPainter::drawMarkings(Rng& r) {
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
    auto solid = [&](float x, Col c) { pa_.rectY(0.005f, x - w * 0.5f, x + w * 0.5f, -10.f, far, c, a, Fog::Plane); };
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
        for (float x = P_.roadL + 0.3f; x + 0.5f < P_.roadR; x += 1.f) pa_.rectY(0.006f, x, x + 0.5f, z, z + len, white, a);
        if (r.chance(0.7f)) pa_.rectY(0.006f, edgeL > 0.f ? edgeL : 0.f, edgeR, z - 2.f, z - 1.6f, white, a);
    }
}

}  // namespace streetgan::synthetic
