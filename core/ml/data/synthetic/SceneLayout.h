// Internal to SyntheticStreets: lays a scene out along the street: the buildings on both sides
// (urban blocks with shop fronts, or suburban houses with pitched roofs and fences), then the
// props (street lights, utility poles, trees, parked cars, signs, pedestrians) and the traffic
// ahead, each from its own random stream. Props come out sorted far to near for painting.
// Thread contract: one per render() call; it writes the caller's lists.
#pragma once

#include <cstdint>
#include <vector>

#include "ml/data/synthetic/Building.h"
#include "ml/data/synthetic/Prop.h"
#include "ml/data/synthetic/SceneMaths.h"
#include "ml/data/synthetic/SceneParams.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace streetgan::synthetic {

class SceneLayout {
public:
    SceneLayout(const SceneParams& P, uint64_t key, std::vector<Building>& buildings, std::vector<Prop>& props)
        : P_(P), key_(key), buildings_(buildings), props_(props) {}

    /// Clears and refills both lists.
    void generate();

private:
    void genBuildings(int side, uint64_t stream);
    void addProp(Kind k, float x, float z, float a, float b, int side, int var, Col col);
    void genProps();
    void genTraffic();

    const SceneParams& P_;
    uint64_t key_;
    std::vector<Building>& buildings_;
    std::vector<Prop>& props_;
};

}  // namespace streetgan::synthetic
