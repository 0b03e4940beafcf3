// Internal to SyntheticStreets: the dice of one scene, drawn up front from its key: time of day,
// weather, season and layout; the camera; the road's cross-section and markings; sky, fog, light
// and material colours; the camera's response. Everything else about the scene follows from these
// and from the per-part random streams.
// Thread contract: a plain value; makeParams is pure.
#pragma once

#include <cstdint>

#include "base/synthetic/SceneMaths.h"
#include "base/synthetic/SyntheticStreets.h"

namespace streetgan::synthetic {

using TimeOfDay = SyntheticStreets::TimeOfDay;
using Weather = SyntheticStreets::Weather;
using Season = SyntheticStreets::Season;
using Layout = SyntheticStreets::Layout;

struct SceneParams {
    TimeOfDay tod;
    Weather weather;
    Season season;
    Layout layout;
    bool snow, wet, haze, lightsOn, sunny;
    // camera (world: X right, Y up, Z along the street; camera at Z = 0)
    float f, camH, camX, tanYaw, cyaw, syaw, v0, mirror;
    // road cross-section (X of edges; centre line at X = 0)
    int lanesFwd, lanesBack;
    bool oneWay;
    float laneW, roadL, roadR, parkL, parkR, kerbH, vergeL, vergeR, walkL, walkR, shoulder;
    // light and colour
    Col skyTop, skyMid, skyHor, fog, ambient, sunCol;
    V3 sunDir;
    float fogD;
    Col asphalt, walkCol, kerbCol, groundCol, grassCol, foliage, foliage2, markWhite, markCentre;
    bool centreYellow, centreDouble, centreSolid;
    float dashLen, dashGap, dashPhase, markAlpha;
    float exposure, sat, vignette;
    Col wb;
    float litP;   // fraction of lit windows
    Col lampCol;  // street lamp colour
    bool hood;
    Col hoodCol;
    float hoodH;

    /// X of the outer edge of the sidewalk on `side` (-1 left, +1 right).
    float streetEdge(int side) const { return side > 0 ? roadR + vergeR + walkR : roadL - vergeL - walkL; }
};

/// The parameters of the scene with key `key` (a pure function of it: stream kParams only).
SceneParams makeParams(uint64_t key);

}  // namespace streetgan::synthetic
