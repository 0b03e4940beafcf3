// Internal to SyntheticStreets: one prop of the layout: culls it against the view, picks its level
// of detail from its projected size (only its light when it is tiny), and hands it to the painter
// of its kind. Pedestrians, three shapes each, are painted here rather than in a file of their own.
// Thread contract: one per render() call.
#pragma once

#include "ml/data/synthetic/Prop.h"
#include "ml/data/synthetic/SceneContext.h"
#include "ml/data/synthetic/StreetFurniturePainter.h"
#include "ml/data/synthetic/VegetationPainter.h"
#include "ml/data/synthetic/VehiclePainter.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace streetgan::synthetic {

class PropPainter : public SceneContext {
public:
    explicit PropPainter(const SceneContext& sc) : SceneContext(sc), vegetation_(sc), furniture_(sc), vehicles_(sc) {}

    void draw(const Prop& p);

private:
    void drawPerson(const Prop& p);

    VegetationPainter vegetation_;
    StreetFurniturePainter furniture_;
    VehiclePainter vehicles_;
};

}  // namespace streetgan::synthetic
