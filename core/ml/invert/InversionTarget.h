// The image LatentInverter projects into a generator: a photo file (JPEG, PNG or WebP, decoded by
// ml/dataset/ImageDecoder with its checks and one-line errors), or a rectangle of it (--crop), made
// into what the generator was trained to produce the way training sees a photo
// (ml/dataset/Augmentation, without its random shift, flip and noise): the centred square of the
// region's short side, resized to the generator's side (PixelResize's Smooth: area averaging when
// shrinking, cubic when enlarging; training's cv::INTER_AREA within one level), then
// (u8 / 255 - 0.5) / 0.5.
//
// Refused, one line each, before any pixel is decoded where the header allows: a file that is not
// an image (ImageDecoder's reasons), a region whose short side is below half the generator's side
// (kMinSideFraction: an enlargement of more than 2x gives the generator nothing to match but blur),
// more pixels than ImageDecoder decodes (its 40 Mpx limit), a crop outside the image.
//
// Thread contract: stateless; any thread.
#pragma once

#include <optional>
#include <string>

#include <ATen/core/Tensor.h>

namespace streetgan {

struct CropRect {
    int x = 0, y = 0, w = 0, h = 0;  ///< source pixels, (x, y) the top-left corner
};

class InversionTarget {
public:
    /// A region's short side must be at least this fraction of the generator's side.
    static constexpr double kMinSideFraction = 0.5;

    /// "x,y,w,h" (non-negative integers, w and h >= 1); ConfigError naming the text otherwise.
    static CropRect parseCrop(const std::string& text);

    /// The photo at `path` (or its `crop`) as float32 (3, side, side) in [-1, 1] on the CPU.
    /// Throws IoError (unreadable file), BadImageError/DataError (not an image, too small, too
    /// large), ConfigError (a crop outside the image), each naming the file; ConfigError when the
    /// build has no photo decoding (BuildFeatures).
    static at::Tensor load(const std::string& path, int side, const std::optional<CropRect>& crop = std::nullopt);

    /// 8-bit RGB pixels (H, W, 3) uint8 (a decoded photo, a rendered scene) made into the same
    /// float32 (3, side, side) in [-1, 1]: centred square, resize, normalisation. DataError naming
    /// `name` when the short side is below kMinSideFraction * side.
    static at::Tensor fromPixels(const at::Tensor& hwc, int side, const std::string& name);

    /// (3, S, S) in [-1, 1] -> uint8 (S, S, 3), the conversion of FrameRenderer's frames.
    static at::Tensor toPixels(const at::Tensor& chw);
};

}  // namespace streetgan
