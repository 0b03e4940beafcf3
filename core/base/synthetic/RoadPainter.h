// Internal to SyntheticStreets: the ground (and fields beside an open road), the road surface with
// its wear tracks, patches, shoulders, snow and wet reflection, the lane markings and zebra
// crossings, and the kerbs, verges and sidewalks.
// Thread contract: one per render() call.
#pragma once

#include "base/synthetic/Rng.h"
#include "base/synthetic/SceneContext.h"

namespace streetgan::synthetic {

class RoadPainter : public SceneContext {
public:
    explicit RoadPainter(const SceneContext& sc) : SceneContext(sc) {}

    void drawGround();
    void drawRoad();

private:
    void drawMarkings(Rng& r);
};

}  // namespace streetgan::synthetic
