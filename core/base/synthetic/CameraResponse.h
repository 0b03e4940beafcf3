// Internal to SyntheticStreets: the camera's response applied to the painted float frame:
// saturation, exposure and white balance, vignette; then rounding to 8-bit RGB.
// Thread contract: stateless; develop() touches only the canvas and output it is given.
#pragma once

#include <cstdint>

#include "base/synthetic/Canvas.h"
#include "base/synthetic/SceneParams.h"

namespace streetgan::synthetic {

class CameraResponse {
public:
    /// Writes cv.H rows of cv.W RGB pixels to `rgbOut`. Uses cv.mask as scratch (the shadow mask
    /// is no longer needed once the scene is painted).
    static void develop(const SceneParams& P, Canvas& cv, uint8_t* rgbOut);
};

}  // namespace streetgan::synthetic
