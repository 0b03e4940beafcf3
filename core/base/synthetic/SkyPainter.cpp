#include "base/synthetic/SkyPainter.h"

#include <algorithm>

#include "base/synthetic/Rng.h"

namespace streetgan::synthetic {

void SkyPainter::drawSky() {
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

void SkyPainter::drawBackdrop() {
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

void SkyPainter::heightField(const float* ka, const float* kh, int n, bool step, float baseY, float bottomY, const Paint& pt) {
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

}  // namespace streetgan::synthetic
