// The public entry point of the synthetic street scenes: a scene's key from (seed, index), its
// parameters, the per-thread scratch buffers, and render() = SceneRenderer then CameraResponse.
// The renderer's parts live beside this file (synthetic/*.h, namespace streetgan::synthetic).
#include "base/synthetic/SyntheticStreets.h"

#include <string>

#include "base/synthetic/Camera.h"
#include "base/synthetic/CameraResponse.h"
#include "base/synthetic/Canvas.h"
#include "base/synthetic/Rng.h"
#include "base/synthetic/SceneParams.h"
#include "base/synthetic/SceneRenderer.h"
#include "base/synthetic/Scratch.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

using synthetic::Camera;
using synthetic::Canvas;
using synthetic::SceneParams;
using synthetic::Scratch;

constexpr size_t kKeepScratchPixels = size_t{512} * 512;

Scratch& scratch() {
    thread_local Scratch s;
    return s;
}

uint64_t sceneKey(uint64_t seed, uint64_t index) { return synthetic::hashPair(synthetic::hashPair(seed, 0x53747265657473ull), index); }

}  // namespace

SyntheticStreets::SyntheticStreets(uint64_t seed) : seed_(seed) {}

SyntheticStreets::SceneInfo SyntheticStreets::describe(uint64_t index) const {
    const SceneParams P = synthetic::makeParams(sceneKey(seed_, index));
    SceneInfo info{};
    info.timeOfDay = P.tod;
    info.weather = P.weather;
    info.season = P.season;
    info.layout = P.layout;
    info.snow = P.snow;
    info.vanishingX = 0.5f - P.f * P.tanYaw;
    info.horizonY = P.v0;
    info.cameraHeight = P.camH;
    return info;
}

void SyntheticStreets::render(uint64_t index, int width, int height, uint8_t* rgbOut) const {
    if (width < 1 || height < 1 || width > kMaxSize || height > kMaxSize)
        throw ConfigError("SyntheticStreets: image size " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1.." +
                          std::to_string(kMaxSize));
    const uint64_t key = sceneKey(seed_, index);
    const SceneParams P = synthetic::makeParams(key);
    const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
    // training-sized frames reuse this thread's buffers; a rare large one gets its own, freed after
    Scratch local;
    Scratch& s = n <= kKeepScratchPixels ? scratch() : local;
    if (s.px.size() < n * 3) s.px.resize(n * 3);
    if (s.mask.size() < n) s.mask.resize(n);
    if (s.cov.size() < static_cast<size_t>(width) + 2) s.cov.assign(static_cast<size_t>(width) + 2, 0.f);
    if (s.buildings.capacity() < 128) s.buildings.reserve(128);
    if (s.props.capacity() < 512) s.props.reserve(512);

    Canvas cv;
    cv.W = width;
    cv.H = height;
    cv.px = s.px.data();
    cv.mask = s.mask.data();
    cv.cov = s.cov.data();
    cv.fog = P.fog;
    cv.fogD = P.fogD;
    Camera cam{
        P.camX, P.camH, P.f, P.v0, P.cyaw, P.syaw, P.mirror, static_cast<float>(width), static_cast<float>(height), 0.5f * static_cast<float>(width + height)};
    synthetic::SceneRenderer(P, key, cv, cam, s).draw();

    synthetic::CameraResponse::develop(P, cv, rgbOut);
}

std::vector<uint8_t> SyntheticStreets::render(uint64_t index, int width, int height) const {
    if (width < 1 || height < 1 || width > kMaxSize || height > kMaxSize)
        throw ConfigError("SyntheticStreets: image size " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1.." +
                          std::to_string(kMaxSize));
    std::vector<uint8_t> out(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
    render(index, width, height, out.data());
    return out;
}

}  // namespace streetgan
