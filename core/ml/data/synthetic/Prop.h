// Internal to SyntheticStreets: one object along the street (tree, conifer, street light, utility
// pole, sign, car, pedestrian), as SceneLayout places it and PropPainter paints it.
// Thread contract: a plain value.
#pragma once

#include <cstdint>

#include "ml/data/synthetic/SceneMaths.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

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
