// Internal to SyntheticStreets: the camera's response applied to the painted float frame:
// saturation, exposure and white balance, vignette; then rounding to 8-bit RGB.
// Thread contract: stateless; develop() touches only the canvas and output it is given.
#pragma once

#include <cstdint>

#include "ml/data/synthetic/Canvas.h"
#include "ml/data/synthetic/SceneParams.h"

// No fused multiply-add contraction in any file of the renderer (bit-identical output, see
// SyntheticStreets.h); in headers too, for their inline code. After the includes on purpose.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace streetgan::synthetic {

class CameraResponse {
public:
    /// Writes cv.H rows of cv.W RGB pixels to `rgbOut`. Uses cv.mask as scratch (the shadow mask
    /// is no longer needed once the scene is painted).
    static void develop(const SceneParams& P, Canvas& cv, uint8_t* rgbOut);
};

}  // namespace streetgan::synthetic
