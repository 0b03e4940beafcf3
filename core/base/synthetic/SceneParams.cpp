#include "base/synthetic/SceneParams.h"

#include <cmath>

#include "base/synthetic/Rng.h"

namespace streetgan::synthetic {

SceneParams makeParams(uint64_t key) {
    SceneParams P{};
    Rng r(hashPair(key, kParams));
    float t = r.uni();
    P.tod = t < 0.68f ? TimeOfDay::Day : (t < 0.82f ? TimeOfDay::Dusk : TimeOfDay::Night);
    t = r.uni();
    P.weather = t < 0.45f ? Weather::Clear : (t < 0.73f ? Weather::Overcast : (t < 0.85f ? Weather::Fog : Weather::Rain));
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
    static constexpr Col kHood[] = {rgb(20, 20, 22), rgb(200, 200, 205), rgb(120, 122, 128), rgb(30, 40, 70), rgb(110, 20, 20)};
    P.hoodCol = r.pick(kHood);
    P.hoodH = r.range(0.05f, 0.13f);
    return P;
}

}  // namespace streetgan::synthetic
