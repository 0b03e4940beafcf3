#include "base/synthetic/SceneLayout.h"

#include <algorithm>

#include "base/synthetic/Rng.h"

namespace streetgan::synthetic {

void SceneLayout::generate() {
    buildings_.clear();
    props_.clear();
    if (P_.layout != Layout::Open) {
        genBuildings(+1, kBuildRight);
        genBuildings(-1, kBuildLeft);
    }
    genProps();
    genTraffic();
    std::sort(props_.begin(), props_.end(), [](const Prop& a, const Prop& b) { return a.z != b.z ? a.z > b.z : a.order < b.order; });
}

void SceneLayout::genBuildings(int side, uint64_t stream) {
    Rng r(hashPair(key_, stream));
    const bool urban = P_.layout == Layout::Urban;
    static constexpr Col kFacade[] = {rgb(150, 80, 60),   rgb(165, 95, 70),   rgb(120, 68, 52),   rgb(200, 180, 145), rgb(215, 198, 160), rgb(225, 220, 205),
                                      rgb(200, 200, 196), rgb(150, 150, 150), rgb(125, 130, 136), rgb(215, 175, 150), rgb(175, 200, 180), rgb(230, 205, 135),
                                      rgb(160, 180, 205), rgb(70, 82, 95),    rgb(185, 120, 90),  rgb(240, 236, 225)};
    static constexpr Col kSiding[] = {rgb(235, 232, 222), rgb(200, 190, 165), rgb(160, 170, 180), rgb(170, 185, 200),
                                      rgb(225, 210, 160), rgb(140, 80, 60),   rgb(120, 130, 115), rgb(210, 200, 190)};
    static constexpr Col kRoof[] = {rgb(70, 70, 75), rgb(95, 70, 60), rgb(150, 75, 55), rgb(55, 58, 65), rgb(115, 105, 95)};
    static constexpr Col kShop[] = {rgb(180, 40, 40),   rgb(30, 60, 120), rgb(30, 110, 60), rgb(220, 180, 40),
                                    rgb(240, 240, 240), rgb(40, 40, 40),  rgb(200, 100, 30)};
    const float edge = P_.streetEdge(side);
    const float zEnd = urban ? r.range(140.f, 260.f) : r.range(110.f, 200.f);
    const float blockH = r.range(8.f, 24.f);
    float z = r.range(-8.f, 0.f);
    int idx = 0;
    while (z < zEnd && buildings_.size() < 96) {
        Building b{};
        b.side = side;
        b.seed = hashPair(hashPair(key_, stream), static_cast<uint64_t>(idx++));
        if (urban) {
            if (r.chance(0.07f)) z += r.range(3.f, 10.f);  // an alley
            b.z0 = z;
            b.z1 = z + r.range(8.f, 26.f);
            b.x = edge + static_cast<float>(side) * (r.chance(0.15f) ? r.range(0.5f, 3.f) : 0.f);
            b.H = std::max(5.f, blockH * r.range(0.6f, 1.5f));
            b.depth = r.range(10.f, 20.f);
            b.wall = r.jitter(r.pick(kFacade), 0.08f);
            b.ribbon = r.chance(0.12f);
            if (b.ribbon) b.wall = r.jitter(rgb(75, 88, 100), 0.1f);
            b.floorH = r.range(2.9f, 3.6f);
            b.groundH = r.range(3.6f, 5.f);
            b.winW = b.ribbon ? r.range(1.8f, 2.6f) : r.range(0.9f, 1.7f);
            b.winH = b.ribbon ? b.floorH - r.range(0.6f, 1.0f) : std::min(b.floorH - 0.8f, r.range(1.2f, 2.1f));
            b.spacing = b.winW + (b.ribbon ? r.range(0.2f, 0.5f) : r.range(0.8f, 2.4f));
            b.shopFront = r.chance(0.6f);
            b.shop = r.jitter(r.pick(kShop), 0.1f);
            b.sign = r.jitter(r.pick(kShop), 0.1f);
            b.gable = false;
            z = b.z1;
        } else {
            const float lot = r.range(14.f, 26.f);
            b.z0 = z + r.range(1.f, 5.f);
            b.z1 = b.z0 + std::min(lot - 3.f, r.range(8.f, 15.f));
            b.x = edge + static_cast<float>(side) * r.range(3.f, 10.f);
            const bool twoFloors = r.chance(0.6f);
            b.floorH = r.range(2.7f, 3.1f);
            b.groundH = b.floorH;
            b.H = (twoFloors ? 2.f : 1.f) * b.floorH + r.range(0.3f, 0.8f);
            b.depth = r.range(8.f, 12.f);
            b.wall = r.jitter(r.pick(kSiding), 0.06f);
            b.winW = r.range(0.9f, 1.5f);
            b.winH = r.range(1.1f, 1.5f);
            b.spacing = b.winW + r.range(1.5f, 3.5f);
            b.gable = true;
            b.roofH = r.range(1.8f, 3.5f);
            b.roof = r.jitter(r.pick(kRoof), 0.08f);
            if (P_.snow) b.roof = mixc(b.roof, rgb(235, 238, 245), 0.85f);
            b.fence = r.chance(0.5f);
            b.fenceCol = r.chance(0.5f) ? r.jitter(P_.foliage * 0.8f, 0.1f) : rgb(225, 225, 220);
            z += lot;
        }
        // glass: dark, partly reflecting the sky
        b.win = mixc(rgb(28, 34, 42), P_.skyHor * 0.75f, r.range(0.15f, 0.55f));
        buildings_.push_back(b);
    }
}

void SceneLayout::addProp(Kind k, float x, float z, float a, float b, int side, int var, Col col) {
    if (props_.size() >= 400) return;
    Prop p{k, x, z, a, b, side, var, col, static_cast<uint32_t>(props_.size()), 0};
    p.seed = hashPair(key_ ^ 0x5A5A5A5Aull, p.order);
    props_.push_back(p);
}

void SceneLayout::genProps() {
    Rng r(hashPair(key_, kProps));
    const bool urban = P_.layout == Layout::Urban, open = P_.layout == Layout::Open;
    static constexpr Col kCars[] = {rgb(235, 235, 235), rgb(20, 20, 22),    rgb(160, 162, 168), rgb(95, 98, 104),  rgb(150, 25, 25),   rgb(30, 55, 110),
                                    rgb(25, 35, 60),    rgb(200, 200, 205), rgb(60, 80, 60),    rgb(130, 110, 80), rgb(240, 240, 240), rgb(40, 40, 45)};
    static constexpr Col kClothes[] = {rgb(30, 30, 35),    rgb(60, 60, 70),  rgb(150, 30, 30), rgb(40, 60, 110),
                                       rgb(200, 200, 190), rgb(110, 90, 60), rgb(80, 110, 60)};
    for (int side = -1; side <= 1; side += 2) {
        const float sgn = static_cast<float>(side);
        const float kerb = side > 0 ? P_.roadR : P_.roadL;
        const float park = side > 0 ? P_.parkR : P_.parkL;
        // street lights / utility poles
        if (urban ? r.chance(0.85f) : r.chance(0.6f)) {
            const bool utility = !urban && r.chance(0.6f);
            const float spacing = utility ? r.range(30.f, 45.f) : r.range(22.f, 38.f);
            const float h = utility ? r.range(8.f, 10.f) : r.range(6.5f, 9.f);
            const float arm = r.range(1.f, 2.5f);
            float z = r.range(0.f, spacing);
            const float x = kerb + sgn * (open ? r.range(1.5f, 4.f) : r.range(0.4f, 0.8f));
            for (; z < 220.f; z += spacing) addProp(utility ? Kind::UtilityPole : Kind::Lamp, x, z, h, arm, side, 0, {});
        }
        // trees
        float treeP = urban ? 0.45f : (open ? 0.65f : 0.85f);
        if (r.chance(treeP)) {
            const float spacing = open ? r.range(6.f, 30.f) : r.range(7.f, 16.f);
            const bool conifers = !urban && r.chance(0.3f);
            for (float z = r.range(0.f, spacing); z < 160.f; z += spacing * r.range(0.7f, 1.3f)) {
                float x = urban ? kerb + sgn * r.range(0.9f, 1.4f)
                                : (open ? kerb + sgn * r.range(3.f, 25.f)
                                        : kerb + sgn * (side > 0 ? P_.vergeR : P_.vergeL) * 0.5f + sgn * (r.chance(0.5f) ? 0.f : r.range(4.f, 10.f)));
                const float h = r.range(3.f, 6.5f), cr = r.range(1.6f, 3.2f);
                const bool conifer = conifers && r.chance(0.7f);
                const int var = r.irange(0, 3);
                const float tint = r.uni();
                addProp(conifer ? Kind::Conifer : Kind::Tree, x, z, h, cr, side, var, mixc(P_.foliage, P_.foliage2, tint));
            }
        }
        // parked cars
        if (park > 0.f) {
            const float occ = r.range(0.35f, 0.9f);
            for (float z = r.range(2.f, 7.f); z < 110.f; z += r.range(5.2f, 7.f)) {
                if (!r.chance(occ)) continue;
                const float x = kerb - sgn * (r.range(0.95f, 1.2f));
                const bool van = r.chance(0.1f);
                const bool facing = side < 0 && !P_.oneWay ? r.chance(0.7f) : r.chance(0.1f);
                const float len = van ? r.range(5.f, 6.f) : r.range(4.1f, 4.8f);
                const Col col = r.jitter(r.pick(kCars), 0.08f);
                addProp(Kind::Car, x, z, len, van ? 1.f : 0.f, side, facing ? 1 : 0, col);
            }
        }
        // signs
        const int nSigns = r.irange(0, open ? 2 : 3);
        for (int i = 0; i < nSigns; ++i) {
            const float x = kerb + sgn * r.range(0.4f, 1.2f);
            const float z = r.range(4.f, 70.f);
            const float h = r.range(2.2f, 2.8f);
            const float size = r.range(0.5f, 0.8f);
            const int var = r.irange(0, 4);
            addProp(Kind::Sign, x, z, h, size, side, var, {});
        }
        // pedestrians
        if (!open) {
            const int n = urban ? r.irange(0, 5) : r.irange(0, 1);
            const float walk = side > 0 ? P_.walkR : P_.walkL;
            const float verge = side > 0 ? P_.vergeR : P_.vergeL;
            for (int i = 0; i < n; ++i) {
                const float x = kerb + sgn * (verge + r.range(0.4f, std::max(0.5f, walk - 0.4f)));
                const float z = r.range(4.f, 60.f);
                const float h = r.range(1.55f, 1.9f);
                const Col col = r.pick(kClothes);
                addProp(Kind::Person, x, z, h, 0.f, side, 0, col);
            }
        }
    }
}

void SceneLayout::genTraffic() {
    Rng r(hashPair(key_, kTraffic));
    static constexpr Col kCars[] = {rgb(235, 235, 235), rgb(20, 20, 22),  rgb(160, 162, 168), rgb(95, 98, 104),
                                    rgb(150, 25, 25),   rgb(30, 55, 110), rgb(200, 200, 205), rgb(240, 240, 240)};
    const int n = r.irange(0, 3);
    for (int i = 0; i < n; ++i) {
        const bool oncoming = !P_.oneWay && r.chance(0.4f);
        const int lanes = oncoming ? P_.lanesBack : P_.lanesFwd;
        const int lane = r.irange(0, lanes - 1);
        const float x = (oncoming ? -1.f : 1.f) * (static_cast<float>(lane) + 0.5f) * P_.laneW + r.range(-0.3f, 0.3f);
        const float z = r.range(oncoming ? 10.f : 9.f, 90.f);
        const bool van = r.chance(0.15f);
        const float len = van ? r.range(5.f, 7.f) : r.range(4.1f, 4.8f);
        const Col col = r.jitter(r.pick(kCars), 0.08f);
        addProp(Kind::Car, x, z, len, van ? 1.f : 0.f, 0, oncoming ? 1 : 0, col);
    }
}

}  // namespace streetgan::synthetic
