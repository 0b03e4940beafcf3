// Internal to SyntheticStreets: paints one scene into a Canvas: lays it out, then paints back to
// front: sky and backdrop, ground and road, shadows, our headlights, the buildings (left side, then
// right, far to near), the props (far to near), and our car's hood.
// Thread contract: one per render() call; it works in the caller's Scratch.
#pragma once

#include <cstdint>

#include "base/synthetic/Camera.h"
#include "base/synthetic/Canvas.h"
#include "base/synthetic/SceneContext.h"
#include "base/synthetic/SceneParams.h"
#include "base/synthetic/Scratch.h"

namespace streetgan::synthetic {

class SceneRenderer {
public:
    SceneRenderer(const SceneParams& P, uint64_t key, Canvas& cv, const Camera& cam, Scratch& s) : P_(P), key_(key), sc_(P, key, cv, cam), s_(s) {}

    void draw();

private:
    const SceneParams& P_;
    uint64_t key_;
    SceneContext sc_;
    Scratch& s_;
};

}  // namespace streetgan::synthetic
