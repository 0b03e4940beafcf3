#include "ml/data/synthetic/SceneRenderer.h"

#include "ml/data/synthetic/BuildingPainter.h"
#include "ml/data/synthetic/PropPainter.h"
#include "ml/data/synthetic/RoadPainter.h"
#include "ml/data/synthetic/SceneLayout.h"
#include "ml/data/synthetic/ShadowPainter.h"
#include "ml/data/synthetic/SkyPainter.h"
#include "ml/data/synthetic/VehiclePainter.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

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
