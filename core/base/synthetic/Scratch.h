// Internal to SyntheticStreets: the buffers one render() call works in (float frame, shadow mask,
// row coverage, the scene's buildings and props), kept per thread between calls for small frames.
// Thread contract: used by one thread at a time (SyntheticStreets.cpp keeps one per thread).
#pragma once

#include <vector>

#include "base/synthetic/Building.h"
#include "base/synthetic/Prop.h"

namespace streetgan::synthetic {

struct Scratch {
    std::vector<float> px, mask, cov;  // cov stays all zero between polygons
    std::vector<Building> buildings;
    std::vector<Prop> props;
};

}  // namespace streetgan::synthetic
