#include "ml/dataset/Augmentation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/util/Errors.h"
#include "base/util/ImageResize.h"
#include "base/util/SeedHash.h"

namespace streetgan {
namespace {

// Independent streams per random choice (ASCII tags).
constexpr uint64_t kShiftTag = 0x7368696674ULL;  // "shift"
constexpr uint64_t kFlipTag = 0x666c6970ULL;     // "flip"
constexpr uint64_t kNoiseTag = 0x6e6f697365ULL;  // "noise"

constexpr int kMaxSize = 4096;
constexpr double kMaxCropSide = 65536.0;

std::string num(double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

void checkImage(const DecodedImage& img) {
    const int r = img.reduction;
    const bool ok = img.width > 0 && img.height > 0 && img.sourceWidth > 0 && img.sourceHeight > 0 && (r == 1 || r == 2 || r == 4 || r == 8) &&
                    (img.sourceWidth + r - 1) / r == img.width && (img.sourceHeight + r - 1) / r == img.height &&
                    img.rgb.size() == static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 3;
    if (!ok)
        throw DataError("augmentation: inconsistent decoded image (" + std::to_string(img.width) + "x" + std::to_string(img.height) + " decoded, " +
                        std::to_string(img.sourceWidth) + "x" + std::to_string(img.sourceHeight) + " source, reduction " + std::to_string(r) + ", " +
                        std::to_string(img.rgb.size()) + " bytes); build it with ImageDecoder::decode");
}

}  // namespace

void Augmentation::validate(const AugmentParams& p) {
    if (p.size < 1 || p.size > kMaxSize)
        throw ConfigError("augmentation size " + std::to_string(p.size) + " is out of range: use 1 to " + std::to_string(kMaxSize) +
                          " pixels (the model's image size, e.g. 64)");
    if (!std::isfinite(p.maxShift) || p.maxShift < 0.0 || p.maxShift > 1.0)
        throw ConfigError("augmentation max shift " + num(p.maxShift) + " is out of range: use a fraction of the width from 0 to 1 (reference 0.2)");
    if (!std::isfinite(p.cropFactor) || p.cropFactor <= 0.0 || p.cropFactor * p.size < 0.5 || p.cropFactor * p.size > kMaxCropSide)
        throw ConfigError("augmentation crop factor " + num(p.cropFactor) + " is out of range for size " + std::to_string(p.size) +
                          ": the crop (factor x size) must be 1 to " + num(kMaxCropSide) + " pixels (reference factor 4)");
    if (!std::isfinite(p.noiseStd) || p.noiseStd < 0.0 || p.noiseStd > 10.0)
        throw ConfigError("augmentation noise std " + num(p.noiseStd) + " is out of range: use 0 to 10 (reference 0.05)");
}

int Augmentation::cropSide(const AugmentParams& p) {
    validate(p);
    return std::max(1, static_cast<int>(std::lround(p.cropFactor * p.size)));
}

DecodeRequest Augmentation::decodeRequest(const AugmentParams& p) {
    DecodeRequest r;
    r.cropSide = cropSide(p);
    r.targetSide = p.size;
    return r;
}

Augmentation::Draw Augmentation::draw(const AugmentParams& p, int sourceWidth, uint64_t seed) {
    validate(p);
    Draw d;
    const uint64_t h = SeedHash::of(seed, kShiftTag);
    const double u = 2.0 * (static_cast<double>(h >> 11) * 0x1.0p-53) - 1.0;  // [-1, 1)
    d.shiftSource = static_cast<int>(std::nearbyint(u * p.maxShift * sourceWidth));
    d.flipped = p.flip && (SeedHash::of(seed, kFlipTag) >> 63) != 0;
    return d;
}

void Augmentation::applyU8(const DecodedImage& img, const AugmentParams& p, uint64_t seed, uint8_t* hwcOut) {
    validate(p);
    checkImage(img);
    const int C = cropSide(p);
    const int W = img.sourceWidth, H = img.sourceHeight;
    if (std::min(W, H) < C)
        throw BadImageError(BadImageReason::TooSmall, "augmentation: a " + std::to_string(W) + "x" + std::to_string(H) + " image is smaller than the " +
                                                          std::to_string(C) + " px crop; use larger images or a smaller crop factor or image size");
    const Draw d = draw(p, W, seed);
    const int r = img.reduction;

    // Centre crop in source pixels (Python round(): half to even), then in decoded pixels.
    const double left = std::nearbyint((W - C) / 2.0), top = std::nearbyint((H - C) / 2.0);
    const int cd = std::clamp(static_cast<int>(std::lround(static_cast<double>(C) / r)), 1, std::min(img.width, img.height));
    const int y0 = std::clamp(static_cast<int>(std::lround(top / r)), 0, img.height - cd);
    const int xc = std::clamp(static_cast<int>(std::lround(left / r)), 0, img.width - cd);
    const int x0 = xc - static_cast<int>(std::lround(static_cast<double>(d.shiftSource) / r));  // shift: crop moves left

    const int S = p.size;
    ImageResize::cropRgb(img.rgb.data(), img.width, img.height, x0, y0, cd, cd, hwcOut, S, S);

    if (d.flipped) {
        for (int y = 0; y < S; ++y) {
            uint8_t* row = hwcOut + static_cast<size_t>(y) * S * 3;
            for (int a = 0, b = S - 1; a < b; ++a, --b)
                for (int c = 0; c < 3; ++c) std::swap(row[a * 3 + c], row[b * 3 + c]);
        }
    }
}

void Augmentation::apply(const DecodedImage& img, const AugmentParams& p, uint64_t seed, float* chwOut) {
    validate(p);
    const int S = p.size;
    const size_t plane = static_cast<size_t>(S) * S;
    std::vector<uint8_t> hwc(plane * 3);
    applyU8(img, p, seed, hwc.data());
    for (size_t i = 0; i < plane; ++i) {  // same formula as the loader's uint8 -> float conversion
        chwOut[i] = hwc[i * 3] * (2.0f / 255.0f) - 1.0f;
        chwOut[plane + i] = hwc[i * 3 + 1] * (2.0f / 255.0f) - 1.0f;
        chwOut[2 * plane + i] = hwc[i * 3 + 2] * (2.0f / 255.0f) - 1.0f;
    }
    addNoise(chwOut, static_cast<int64_t>(plane * 3), p.noiseStd, seed);
}

namespace {

// Standard normal quantiles at (k + 0.5) / 65536: a sample is one table lookup, and one splitmix64
// output gives four 16-bit indices. Box-Muller (log, sqrt, sin, cos per pair) cost about as much
// as a fifth of a reduced JPEG decode per 64x64 image; this costs about a hundredth. The tails are
// cut at 4.3 sigma and values are quantised to 65536 levels, far below the uint8 pixel step.
class NormalTable {
public:
    NormalTable() {
        for (int k = 0; k < kSize; ++k) table_[k] = static_cast<float>(quantile((k + 0.5) / kSize));
    }
    float operator[](uint32_t i) const { return table_[i]; }
    static constexpr int kSize = 65536;

private:
    // Acklam's rational approximation of the inverse normal CDF (relative error < 1.2e-9).
    static double quantile(double p) {
        static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                   1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
        static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01};
        static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                   -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
        static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
        const double lo = 0.02425;
        if (p < lo) {
            const double q = std::sqrt(-2 * std::log(p));
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        if (p > 1 - lo) return -quantile(1 - p);
        const double q = p - 0.5, r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    float table_[kSize];
};

}  // namespace

void Augmentation::addNoise(float* data, int64_t count, double noiseStd, uint64_t seed) {
    if (!(noiseStd > 0.0) || count <= 0) return;
    // Reference: + noiseStd * N(0,1) in [0,1] units, then Normalize(0.5, 0.5) doubles it.
    static const NormalTable normal;
    const float scale = static_cast<float>(2.0 * noiseStd);
    const uint64_t base = SeedHash::of(seed, kNoiseTag);
    for (int64_t i = 0; i < count; i += 4) {
        const uint64_t z = SeedHash::mix(base + static_cast<uint64_t>(i / 4));
        const int64_t n = std::min<int64_t>(4, count - i);
        for (int64_t k = 0; k < n; ++k) data[i + k] += scale * normal[static_cast<uint32_t>((z >> (16 * k)) & 0xFFFFu)];
    }
}

}  // namespace streetgan
