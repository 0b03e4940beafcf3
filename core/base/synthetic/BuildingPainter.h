// Internal to SyntheticStreets: a building: its end face (with a gable when pitched), the roof
// slope facing the street, the street facade with its windows (a FacadeTex), a shop front with its
// sign and awning, the cornice or eave, and a fence or hedge along a suburban lot.
// Thread contract: one per render() call.
#pragma once

#include "base/synthetic/Building.h"
#include "base/synthetic/FacadeTex.h"
#include "base/synthetic/SceneContext.h"

namespace streetgan::synthetic {

class BuildingPainter : public SceneContext {
public:
    explicit BuildingPainter(const SceneContext& sc) : SceneContext(sc) {}

    void draw(const Building& b);

private:
    /// Window grid of a facade as a texture (see FacadeTex).
    void facadeTexture(const Building& b, Col wall, FacadeTex& t) const;
    void drawShopFront(const Building& b);
};

}  // namespace streetgan::synthetic
