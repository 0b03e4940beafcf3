// Internal to SyntheticStreets: street lights (with their glow, pool of light and wet-road streak
// after dark), utility poles with their wires, and traffic signs.
// Thread contract: one per render() call.
#pragma once

#include "base/synthetic/Prop.h"
#include "base/synthetic/SceneContext.h"

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
