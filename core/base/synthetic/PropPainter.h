// Internal to SyntheticStreets: one prop of the layout: culls it against the view, picks its level
// of detail from its projected size (only its light when it is tiny), and hands it to the painter
// of its kind. Pedestrians, three shapes each, are painted here rather than in a file of their own.
// Thread contract: one per render() call.
#pragma once

#include "base/synthetic/Prop.h"
#include "base/synthetic/SceneContext.h"
#include "base/synthetic/StreetFurniturePainter.h"
#include "base/synthetic/VegetationPainter.h"
#include "base/synthetic/VehiclePainter.h"

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
