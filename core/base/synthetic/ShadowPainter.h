// Internal to SyntheticStreets: the shadows the sun casts on the ground (buildings, cars, trees,
// poles), drawn into the shadow mask as convex hulls and then applied to the frame.
// Thread contract: one per render() call.
#pragma once

#include <vector>

#include "base/synthetic/Building.h"
#include "base/synthetic/Prop.h"
#include "base/synthetic/SceneContext.h"

namespace streetgan::synthetic {

class ShadowPainter : public SceneContext {
public:
    explicit ShadowPainter(const SceneContext& sc) : SceneContext(sc) {}

    /// Shadows of everything in the scene; nothing unless the sun shines.
    void draw(const std::vector<Building>& buildings, const std::vector<Prop>& props);

private:
    void shadowHull(const V2* pts, int n, float y);  // convex hull in (x, z), drawn into the mask
    void boxShadow(float x0, float x1, float z0, float z1, float height);
};

}  // namespace streetgan::synthetic
