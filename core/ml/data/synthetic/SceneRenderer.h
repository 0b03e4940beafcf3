// Internal to SyntheticStreets: paints one scene into a Canvas: lays it out, then paints back to
// front: sky and backdrop, ground and road, shadows, our headlights, the buildings (left side, then
// right, far to near), the props (far to near), and our car's hood.
// Thread contract: one per render() call; it works in the caller's Scratch.
#pragma once

#include <cstdint>

#include "ml/data/synthetic/Camera.h"
#include "ml/data/synthetic/Canvas.h"
#include "ml/data/synthetic/SceneContext.h"
#include "ml/data/synthetic/SceneParams.h"
#include "ml/data/synthetic/Scratch.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

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
