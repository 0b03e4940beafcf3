#include "ml/invert/InversionTarget.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include <ATen/ATen.h>

#include "base/util/AtomicFile.h"
#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "ml/export/PixelResize.h"
#if STREETGAN_WITH_PHOTOS
#include "ml/dataset/ImageDecoder.h"
#endif

namespace streetgan {
namespace {

// Larger files are refused before they are read: ImageDecoder refuses files above 2 GiB and images
// above 40 Mpx; no street photo of 40 Mpx or less takes a gigabyte, even as a 16-bit PNG.
constexpr uintmax_t kMaxFileBytes = uintmax_t{1} << 30;

int minSide(int side) { return static_cast<int>(std::ceil(side * InversionTarget::kMinSideFraction)); }

void checkShortSide(int w, int h, int side, const std::string& name, const std::string& what) {
    const int shortSide = std::min(w, h);
    if (shortSide < minSide(side))
        throw DataError("image '" + name + "': " + what + " " + std::to_string(w) + "x" + std::to_string(h) + " is too small for this " + std::to_string(side) +
                        " px generator (its short side needs at least " + std::to_string(minSide(side)) + " px); give a larger photo or crop");
}

}  // namespace

CropRect InversionTarget::parseCrop(const std::string& text) {
    std::istringstream in(text);
    long long v[4] = {-1, -1, -1, -1};
    char comma = 0;
    bool ok = static_cast<bool>(in >> v[0]);
    for (int i = 1; ok && i < 4; ++i) ok = (in >> comma) && comma == ',' && (in >> v[i]);
    ok = ok && (in >> std::ws).eof();
    for (long long x : v) ok = ok && x >= 0 && x <= 1'000'000;
    if (!ok || v[2] < 1 || v[3] < 1)
        throw ConfigError("crop '" + text + "' is not x,y,w,h (four integers in pixels, width and height at least 1), e.g. --crop 100,50,480,480");
    return {static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]), static_cast<int>(v[3])};
}

at::Tensor InversionTarget::fromPixels(const at::Tensor& hwc, int side, const std::string& name) {
    if (hwc.dim() != 3 || hwc.size(2) != 3 || hwc.scalar_type() != at::kByte)
        throw DataError("image '" + name + "' must be 8-bit RGB pixels (H, W, 3) to be inverted");
    const int h = static_cast<int>(hwc.size(0)), w = static_cast<int>(hwc.size(1));
    checkShortSide(w, h, side, name, "the image is");
    const int s = std::min(w, h);
    const at::Tensor square = hwc.narrow(0, (h - s) / 2, s).narrow(1, (w - s) / 2, s).unsqueeze(0).contiguous();
    const at::Tensor resized = PixelResize::resize(square, side, side, PixelResize::Filter::Smooth);
    return resized[0].permute({2, 0, 1}).to(at::kFloat).div(255.0).sub(0.5).div(0.5).contiguous();
}

at::Tensor InversionTarget::toPixels(const at::Tensor& chw) {
    return chw.detach().to(at::kCPU, at::kFloat).add(1).mul(127.5).add_(0.5).clamp_(0, 255).to(at::kByte).permute({1, 2, 0}).contiguous();
}

at::Tensor InversionTarget::load(const std::string& path, int side, const std::optional<CropRect>& crop) {
#if STREETGAN_WITH_PHOTOS
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw IoError("image '" + path + "' does not exist or is not a file; give a JPEG, PNG or WebP photo");
    if (std::filesystem::file_size(path, ec) > kMaxFileBytes)
        throw BadImageError(BadImageReason::TooLarge, "image '" + path + "': the file is larger than 1 GiB; downscale it first");
    const std::string bytes = AtomicFile::read(path);
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    const ImageInfo info = ImageDecoder::probe(data, bytes.size(), path);
    CropRect r{0, 0, info.width, info.height};
    if (crop) {
        r = *crop;
        if (static_cast<int64_t>(r.x) + r.w > info.width || static_cast<int64_t>(r.y) + r.h > info.height)
            throw ConfigError("crop " + std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.w) + "," + std::to_string(r.h) +
                              " lies outside image '" + path + "' (" + std::to_string(info.width) + "x" + std::to_string(info.height) +
                              "); x + w and y + h must stay within the image");
        checkShortSide(r.w, r.h, side, path, "the crop");
    } else {
        checkShortSide(r.w, r.h, side, path, "the image is");
    }
    // JPEGs are decoded reduced (libjpeg's scaled IDCT) while the region keeps at least `side`
    // decoded pixels across, as the training loader does; region coordinates then divide by it.
    DecodeRequest req;
    req.cropSide = std::min(r.w, r.h);
    req.targetSide = side;
    const DecodedImage img = ImageDecoder::decode(data, bytes.size(), req, path);
    const at::Tensor all = at::from_blob(const_cast<uint8_t*>(img.rgb.data()), {img.height, img.width, 3}, at::kByte);
    const int f = img.reduction;
    const int x0 = r.x / f, y0 = r.y / f;
    const int w = std::max(1, std::min(r.w / f, img.width - x0)), h = std::max(1, std::min(r.h / f, img.height - y0));
    return fromPixels(all.narrow(0, y0, h).narrow(1, x0, w).clone(), side, path);
#else
    (void)side;
    (void)crop;
    BuildFeatures::missing("inverting the photo '" + path + "'", BuildFeatures::Feature::Photos);
#endif
}

}  // namespace streetgan
