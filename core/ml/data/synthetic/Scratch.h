// Internal to SyntheticStreets: the buffers one render() call works in (float frame, shadow mask,
// row coverage, the scene's buildings and props), kept per thread between calls for small frames.
// Thread contract: used by one thread at a time (SyntheticStreets.cpp keeps one per thread).
#pragma once

#include <vector>

#include "ml/data/synthetic/Building.h"
#include "ml/data/synthetic/Prop.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace streetgan::synthetic {

struct Scratch {
    std::vector<float> px, mask, cov;  // cov stays all zero between polygons
    std::vector<Building> buildings;
    std::vector<Prop> props;
};

}  // namespace streetgan::synthetic
