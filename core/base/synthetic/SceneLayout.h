// Internal to SyntheticStreets: lays a scene out along the street: the buildings on both sides
// (urban blocks with shop fronts, or suburban houses with pitched roofs and fences), then the
// props (street lights, utility poles, trees, parked cars, signs, pedestrians) and the traffic
// ahead, each from its own random stream. Props come out sorted far to near for painting.
// Thread contract: one per render() call; it writes the caller's lists.
#pragma once

#include <cstdint>
#include <vector>

#include "base/synthetic/Building.h"
#include "base/synthetic/Prop.h"
#include "base/synthetic/SceneMaths.h"
#include "base/synthetic/SceneParams.h"

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
