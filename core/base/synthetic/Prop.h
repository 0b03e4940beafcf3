// Internal to SyntheticStreets: one object along the street (tree, conifer, street light, utility
// pole, sign, car, pedestrian), as SceneLayout places it and PropPainter paints it.
// Thread contract: a plain value.
#pragma once

#include <cstdint>

#include "base/synthetic/SceneMaths.h"

namespace streetgan::synthetic {

enum class Kind : uint8_t { Tree, Conifer, Lamp, UtilityPole, Sign, Car, Person };

struct Prop {
    Kind kind;
    float x, z;  // world position (x: centre; z: nearest end for cars)
    float a, b;  // kind-specific sizes
    int side;
    int var;
    Col col;
    uint32_t order;
    uint64_t seed;
};

}  // namespace streetgan::synthetic
