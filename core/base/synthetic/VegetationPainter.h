// Internal to SyntheticStreets: trees (a crown of overlapping discs, or bare branches in winter)
// and conifers (with snow on them when it has snowed).
// Thread contract: one per render() call.
#pragma once

#include "base/synthetic/Prop.h"
#include "base/synthetic/SceneContext.h"

namespace streetgan::synthetic {

class VegetationPainter : public SceneContext {
public:
    explicit VegetationPainter(const SceneContext& sc) : SceneContext(sc) {}

    /// `rp`: the tree's projected radius in pixels (picks the level of detail).
    void drawTree(const Prop& p, float rp);
    void drawConifer(const Prop& p);
};

}  // namespace streetgan::synthetic
