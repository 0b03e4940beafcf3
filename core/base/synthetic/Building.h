// Internal to SyntheticStreets: one building of a scene's layout (urban block or suburban house
// with a pitched roof), as SceneLayout draws it and BuildingPainter paints it.
// Thread contract: a plain value.
#pragma once

#include <cstdint>

#include "base/synthetic/SceneMaths.h"

namespace streetgan::synthetic {

struct Building {
    float z0, z1, x, H, depth;  // x: facade plane (signed), depth: extent away from the street
    int side;                   // -1 left, +1 right
    Col wall, win, shop, sign, roof;
    float floorH, groundH, winW, winH, spacing;
    bool shopFront, ribbon, gable, fence;
    float roofH;
    Col fenceCol;
    uint64_t seed;
};

}  // namespace streetgan::synthetic
