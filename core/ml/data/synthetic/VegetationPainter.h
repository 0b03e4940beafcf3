// Internal to SyntheticStreets: trees (a crown of overlapping discs, or bare branches in winter)
// and conifers (with snow on them when it has snowed).
// Thread contract: one per render() call.
#pragma once

#include "ml/data/synthetic/Prop.h"
#include "ml/data/synthetic/SceneContext.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace streetgan::synthetic {

class VegetationPainter : public SceneContext {
public:
    explicit VegetationPainter(const SceneContext& sc) : SceneContext(sc) {}

    /// `rp`: the tree's projected radius in pixels (picks the level of detail).
    void drawTree(const Prop& p, float rp);
    void drawConifer(const Prop& p);
};

}  // namespace streetgan::synthetic
