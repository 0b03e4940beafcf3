// Internal to SyntheticStreets: cars and vans (parked or in traffic, with their lights after dark)
// and our own car: its low beams on the road and its hood at the bottom of the frame.
// Thread contract: one per render() call.
#pragma once

#include "base/synthetic/Prop.h"
#include "base/synthetic/SceneContext.h"

namespace streetgan::synthetic {

class VehiclePainter : public SceneContext {
public:
    explicit VehiclePainter(const SceneContext& sc) : SceneContext(sc) {}

    /// `rp`: the car's projected radius in pixels (picks the level of detail).
    void drawCar(const Prop& p, float rp);
    /// A car's head or tail lights alone (also for cars too small to draw).
    void carLights(const Prop& p, float x0, float x1, float z0, float ly0, bool facingUs);
    /// Our own low beams on the road (dusk and night).
    void drawHeadlights();
    /// Our own car's hood at the bottom of the frame, when the scene has one.
    void drawHood();
};

}  // namespace streetgan::synthetic
