// Internal to SyntheticStreets: street lights (with their glow, pool of light and wet-road streak
// after dark), utility poles with their wires, and traffic signs.
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

class StreetFurniturePainter : public SceneContext {
public:
    explicit StreetFurniturePainter(const SceneContext& sc) : SceneContext(sc) {}

    void drawLamp(const Prop& p);
    /// A street light's light alone (also for lamps too small to draw).
    void lampLight(const Prop& p);
    void drawUtilityPole(const Prop& p);
    void drawSign(const Prop& p);
};

}  // namespace streetgan::synthetic
