// Internal to SyntheticStreets: what every painter of one scene shares: its parameters and key,
// the canvas, the camera, the world-space Painter, and the lighting model (ambient sky light plus
// the sun on a surface of a given normal). The painters derive from it so that their code reads
// P_, cv_, pa_ and shade() as it did when they were one class.
// Thread contract: one per render() call; copies share that call's canvas.
#pragma once

#include <cstdint>

#include "base/synthetic/Camera.h"
#include "base/synthetic/Canvas.h"
#include "base/synthetic/Painter.h"
#include "base/synthetic/SceneMaths.h"
#include "base/synthetic/SceneParams.h"

namespace streetgan::synthetic {

class SceneContext {
public:
    SceneContext(const SceneParams& P, uint64_t key, Canvas& cv, const Camera& cam) : P_(P), key_(key), cv_(cv), cam_(cam), pa_{cv, cam} {}

protected:
    const SceneParams& P_;
    uint64_t key_;
    Canvas& cv_;
    const Camera& cam_;
    Painter pa_;

    bool night() const { return P_.tod == TimeOfDay::Night; }

    /// Albedo lit by ambient sky light and the sun for a surface of world normal n.
    Col shade(Col albedo, V3 n) const {
        const float sky = n.y > 0.5f ? 1.f : (n.y < -0.5f ? 0.45f : 0.8f);
        Col light = P_.ambient * sky;
        if (P_.sunny) {
            const float l = n.x * P_.sunDir.x + n.y * P_.sunDir.y + n.z * P_.sunDir.z;
            if (l > 0.f) light = light + P_.sunCol * l;
        }
        return albedo * light * 1.35f;
    }
    Col top(Col a) const { return shade(a, {0.f, 1.f, 0.f}); }
    Col front(Col a) const { return shade(a, {0.f, 0.f, -1.f}); }
    Col facing(Col a, float nx) const { return shade(a, {nx, 0.f, 0.f}); }
    int W() const { return cv_.W; }
    int H() const { return cv_.H; }
};

}  // namespace streetgan::synthetic
