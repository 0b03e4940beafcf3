#include "base/synthetic/SceneRenderer.h"

#include "base/synthetic/BuildingPainter.h"
#include "base/synthetic/PropPainter.h"
#include "base/synthetic/RoadPainter.h"
#include "base/synthetic/SceneLayout.h"
#include "base/synthetic/ShadowPainter.h"
#include "base/synthetic/SkyPainter.h"
#include "base/synthetic/VehiclePainter.h"

namespace streetgan::synthetic {

// The order is the painter's algorithm and the random streams are per part: changing either
// changes every scene (the golden checksums in SyntheticStreetsTest).
void SceneRenderer::draw() {
    SceneLayout(P_, key_, s_.buildings, s_.props).generate();
    SkyPainter sky(sc_);
    sky.drawSky();
    sky.drawBackdrop();
    RoadPainter road(sc_);
    road.drawGround();
    road.drawRoad();
    ShadowPainter(sc_).draw(s_.buildings, s_.props);
    VehiclePainter vehicles(sc_);
    vehicles.drawHeadlights();
    BuildingPainter buildings(sc_);
    for (auto it = s_.buildings.rbegin(); it != s_.buildings.rend(); ++it)
        if (it->side < 0) buildings.draw(*it);
    for (auto it = s_.buildings.rbegin(); it != s_.buildings.rend(); ++it)
        if (it->side > 0) buildings.draw(*it);
    PropPainter props(sc_);
    for (const Prop& p : s_.props) props.draw(p);
    vehicles.drawHood();
}

}  // namespace streetgan::synthetic
