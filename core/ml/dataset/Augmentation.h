// The reference training augmentation, every parameter configurable. The reference (torchvision):
//   RandomAffine(degrees=0, translate=(0.2, 0))  random horizontal shift, black fill
//   CenterCrop(4 * size)                          e.g. 256x256 of a 640x480 MSLS photo for size 64
//   Resize(size)                                  bilinear (PIL, antialiased)
//   ToTensor, + 0.05 * N(0, 1), Normalize(0.5, 0.5)
// so the crop covers cropFactor * size pixels of the ORIGINAL resolution.
//
// Geometry, in source pixels (the decoder's reduction r is divided out afterwards):
//   shift  dx = round(u * maxShift * sourceWidth), u uniform in [-1, 1) (torchvision draws the
//          same way and rounds to whole pixels); content moves right for dx > 0 and the uncovered
//          columns are black, as RandomAffine's fill=0.
//   crop   C = round(cropFactor * size); left = round((W - C) / 2), top = round((H - C) / 2),
//          rounding half to even like Python's round() in CenterCrop. Only the horizontal shift
//          can uncover pixels: with the reference 4x crop of a 640x480 photo (left = 192, |dx| <=
//          128) no black ever enters the crop; it does for crops close to the image width.
//   decoded pixels: left, top, C and dx are divided by r and rounded to whole decoded pixels, so
//          with a reduced JPEG the shift moves in steps of r source pixels (for the reference
//          setting r = 4 and C / r = size: one output pixel).
//   resize the C/r square to size x size: cv::INTER_AREA when shrinking (a box filter; PIL's
//          antialiased bilinear is a triangle of twice the width, so ours is marginally sharper),
//          a plain copy at 1:1 (the reference JPEG case: the DCT reduction did the filtering),
//          bilinear when enlarging. Crop-then-resize is used rather than one warpAffine (shift +
//          crop + scale straight to the target size) for quality: warpAffine has no area filter,
//          so at 4:1 its bilinear sampling aliases. Measured on one thread (640x480 -> 64), the
//          warpAffine is faster from a full-size decode (0.015 vs 0.058 ms), but both are small
//          next to the decode (1-2 ms), and in the reference JPEG path the DCT reduction lands
//          on the target size so the geometry is a plain copy (< 0.001 ms). The rates are printed
//          by AugmentationThroughput in tests/ml/dataset/AugmentationTest.cpp.
//   flip   with AugmentParams::flip, a fair coin mirrors the result horizontally (not in the
//          reference; off by default).
// Intensity (apply() only): out = (u8 / 255 + noiseStd * n - 0.5) / 0.5 with n ~ N(0, 1) per
//   element, i.e. u8 * 2/255 - 1 + 2 * noiseStd * n: the noise is added in [0, 1] units before
//   Normalize, so its std in the [-1, 1] output is 2 * noiseStd (0.1 for the reference 0.05).
//   Like the reference the result is NOT clamped: with noise, values stray slightly outside
//   [-1, 1] (|excess| is a few tenths at most). The geometry is quantised to uint8 before the
//   noise, as the reference's PIL image is.
//
// Determinism: the output is a pure function of (image, params, seed); callers derive the seed
// from (run seed, epoch, index) with SeedHash::of. All draws come from SeedHash (splitmix64),
// normals by Box-Muller on it, never from std:: distributions. Same bytes on every thread; the
// noise uses libm log/sin/cos, so other platforms may differ in the last float bit.
//
// Thread contract: stateless, any number of threads at once. OpenCV's resize may use OpenCV's
// own thread pool for large crops; loaders with many workers may want cv::setNumThreads(1).
#pragma once

#include <cstdint>

#include "ml/dataset/ImageDecoder.h"

namespace streetgan {

/// Augmentation parameters (validated by Augmentation::validate: ConfigError).
struct AugmentParams {
    int size = 64;            ///< output side in pixels, 1..4096
    double maxShift = 0.2;    ///< largest horizontal shift as a fraction of the source width, 0..1
    double cropFactor = 4.0;  ///< centre-crop side in source pixels = round(cropFactor * size)
    double noiseStd = 0.05;   ///< Gaussian noise std in [0, 1] units (x2 in the [-1, 1] output), >= 0
    bool flip = false;        ///< random horizontal mirror (p = 0.5)
};

class Augmentation {
public:
    /// The random choices a seed makes, in source pixels (for tests, previews and debugging).
    struct Draw {
        int shiftSource = 0;  ///< dx in source pixels (> 0: content moves right, black on the left)
        bool flipped = false;
    };

    /// Throws ConfigError naming the bad parameter and its range.
    static void validate(const AugmentParams& params);

    /// round(cropFactor * size), at least 1: source pixels the crop spans.
    static int cropSide(const AugmentParams& params);

    /// What to ask ImageDecoder for: images whose short side is below cropSide() fail with
    /// TooSmall before decoding, and JPEGs are DCT-reduced as far as the crop still has `size`
    /// decoded pixels (reference setting: r = 4, a 160x120 decode of a 640x480 photo).
    static DecodeRequest decodeRequest(const AugmentParams& params);

    /// The draws for `seed` on an image `sourceWidth` pixels wide.
    static Draw draw(const AugmentParams& params, int sourceWidth, uint64_t seed);

    /// Writes (3, size, size) float32, CHW, RGB planes, normalised to [-1, 1] plus the unclamped
    /// noise described above, into chwOut (3 * size * size floats, caller-owned).
    /// Throws ConfigError for bad params, BadImageError(TooSmall) when the source's short side is
    /// below cropSide(), DataError for an inconsistent DecodedImage.
    static void apply(const DecodedImage& image, const AugmentParams& params, uint64_t seed, float* chwOut);

    /// The same geometry (shift, crop, resize, flip) without noise: size * size * 3 bytes, HWC,
    /// RGB, into hwcOut (caller-owned). This is what ImageSource::load() delivers; a loader that
    /// converts it to floats adds the noise with addNoise() to get exactly apply()'s result.
    static void applyU8(const DecodedImage& image, const AugmentParams& params, uint64_t seed, uint8_t* hwcOut);

    /// Adds 2 * noiseStd * N(0, 1) to each of the `count` floats (the [-1, 1]-unit noise of
    /// apply(); pass count = 3 * size * size, CHW order, for identical values). Deterministic
    /// for `seed`; noiseStd 0 leaves the data untouched.
    static void addNoise(float* data, int64_t count, double noiseStd, uint64_t seed);
};

}  // namespace streetgan
