// Internal to SyntheticStreets: the ground (and fields beside an open road), the road surface with
// its wear tracks, patches, shoulders, snow and wet reflection, the lane markings and zebra
// crossings, and the kerbs, verges and sidewalks.
// Thread contract: one per render() call.
#pragma once

#include "ml/data/synthetic/Rng.h"
#include "ml/data/synthetic/SceneContext.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

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
