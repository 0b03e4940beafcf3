#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <thread>
#include <vector>

#include "base/util/Errors.h"
#include "ml/dataset/Augmentation.h"
#include "ml/dataset/ImageDecoder.h"

using namespace streetgan;

namespace {

using Bytes = std::vector<uint8_t>;

/// Wraps an RGB Mat as a full-resolution decoded image.
DecodedImage fromMat(const cv::Mat& rgb) {
    DecodedImage d;
    d.width = d.sourceWidth = rgb.cols;
    d.height = d.sourceHeight = rgb.rows;
    d.reduction = 1;
    d.format = ImageFormat::Png;
    const cv::Mat c = rgb.isContinuous() ? rgb : rgb.clone();
    d.rgb.assign(c.data, c.data + c.total() * 3);
    return d;
}

/// Gradients, a checkerboard band and texture: photo-like content, RGB.
cv::Mat photo(int w, int h) {
    cv::Mat img(h, w, CV_8UC3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            auto* p = img.ptr<uint8_t>(y) + 3 * x;
            p[0] = static_cast<uint8_t>(30 + 190 * x / w);
            p[1] = static_cast<uint8_t>(20 + 210 * y / h);
            p[2] = static_cast<uint8_t>((y > h / 2 && ((x / 12 + y / 12) % 2)) ? 210 : 50);
        }
    cv::Mat noise(h, w, CV_16SC3);
    cv::theRNG().state = 777;
    cv::randn(noise, cv::Scalar::all(0), cv::Scalar::all(8));
    cv::Mat out;
    cv::add(img, noise, out, cv::noArray(), CV_8UC3);
    cv::rectangle(out, cv::Rect(300, 200, 40, 40), cv::Scalar(255, 255, 255), cv::FILLED);
    return out;
}

/// Black picture with a white marker rectangle.
cv::Mat markerImage(int w, int h, cv::Rect marker) {
    cv::Mat img(h, w, CV_8UC3, cv::Scalar::all(0));
    cv::rectangle(img, marker, cv::Scalar::all(255), cv::FILLED);
    return img;
}

Bytes encodeJpeg(const cv::Mat& rgb, int quality = 90) {
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    std::vector<uchar> buf;
    EXPECT_TRUE(cv::imencode(".jpg", bgr, buf, {cv::IMWRITE_JPEG_QUALITY, quality}));
    return Bytes(buf.begin(), buf.end());
}

AugmentParams reference(int size = 64) {
    AugmentParams p;
    p.size = size;
    return p;
}

AugmentParams geometryOnly(int size = 64) {
    AugmentParams p;
    p.size = size;
    p.maxShift = 0.0;
    p.noiseStd = 0.0;
    return p;
}

std::vector<uint8_t> runU8(const DecodedImage& img, const AugmentParams& p, uint64_t seed) {
    std::vector<uint8_t> out(static_cast<size_t>(p.size) * p.size * 3);
    Augmentation::applyU8(img, p, seed, out.data());
    return out;
}

std::vector<float> runF(const DecodedImage& img, const AugmentParams& p, uint64_t seed) {
    std::vector<float> out(static_cast<size_t>(3) * p.size * p.size);
    Augmentation::apply(img, p, seed, out.data());
    return out;
}

/// Mean x of the bright pixels (channel 0 > 127 weighted by value) of an HWC output.
double brightCentroidX(const std::vector<uint8_t>& hwc, int S) {
    double sum = 0, wsum = 0;
    for (int y = 0; y < S; ++y)
        for (int x = 0; x < S; ++x) {
            const double v = hwc[(static_cast<size_t>(y) * S + x) * 3];
            sum += v * x;
            wsum += v;
        }
    return wsum > 0 ? sum / wsum : -1;
}

}  // namespace

// ------------------------------------------------------------------------------ parameters

TEST(Augmentation, RejectsBadParameters) {
    auto bad = [](auto edit) {
        AugmentParams p = reference();
        edit(p);
        EXPECT_THROW(Augmentation::validate(p), ConfigError);
    };
    bad([](AugmentParams& p) { p.size = 0; });
    bad([](AugmentParams& p) { p.size = 100000; });
    bad([](AugmentParams& p) { p.maxShift = -0.1; });
    bad([](AugmentParams& p) { p.maxShift = 1.5; });
    bad([](AugmentParams& p) { p.maxShift = std::numeric_limits<double>::quiet_NaN(); });
    bad([](AugmentParams& p) { p.cropFactor = 0; });
    bad([](AugmentParams& p) { p.cropFactor = -4; });
    bad([](AugmentParams& p) { p.cropFactor = std::numeric_limits<double>::infinity(); });
    bad([](AugmentParams& p) { p.noiseStd = -0.01; });
    EXPECT_NO_THROW(Augmentation::validate(reference()));
    try {
        AugmentParams p = reference();
        p.maxShift = 2;
        Augmentation::validate(p);
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("shift"), std::string::npos) << e.what();
    }
    std::vector<float> out(3 * 64 * 64);
    AugmentParams p = reference();
    p.size = -3;
    EXPECT_THROW(Augmentation::apply(fromMat(photo(640, 480)), p, 1, out.data()), ConfigError);
}

TEST(Augmentation, ReferenceSettingsAskForADctReductionOfFour) {
    const DecodeRequest r = Augmentation::decodeRequest(reference(64));
    EXPECT_EQ(r.cropSide, 256);
    EXPECT_EQ(r.targetSide, 64);
    EXPECT_EQ(ImageDecoder::chooseReduction(r.cropSide, r.targetSide), 4);
    const DecodeRequest r128 = Augmentation::decodeRequest(reference(128));
    EXPECT_EQ(r128.cropSide, 512);  // larger than a 640x480 photo's short side: MSLS images are too small
    EXPECT_EQ(Augmentation::cropSide([] {
                  AugmentParams p;
                  p.size = 48;
                  p.cropFactor = 3.3;
                  return p;
              }()),
              158);  // round(158.4)
}

// ------------------------------------------------------------------------------ output

TEST(Augmentation, OutputShapeAndRange) {
    const DecodedImage img = fromMat(photo(640, 480));
    const int S = 64;
    const size_t n = 3u * S * S;
    std::vector<float> buf(n + 32, 12345.0f);  // canaries after the output
    Augmentation::apply(img, geometryOnly(S), 5, buf.data());
    for (size_t i = 0; i < n; ++i) {
        ASSERT_GE(buf[i], -1.0f);
        ASSERT_LE(buf[i], 1.0f);
        const float k = (buf[i] + 1.0f) * 255.0f / 2.0f;  // exactly u8 * 2/255 - 1 without noise
        ASSERT_NEAR(k, std::round(k), 1e-3);
    }
    for (size_t i = n; i < buf.size(); ++i) ASSERT_EQ(buf[i], 12345.0f) << "wrote past the output";

    Augmentation::apply(img, reference(S), 5, buf.data());
    float lo = 1e9f, hi = -1e9f;
    for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(std::isfinite(buf[i]));
        lo = std::min(lo, buf[i]);
        hi = std::max(hi, buf[i]);
    }
    // Unclamped like the reference: noise may leave [-1, 1] a little, never far (7 sigma of 0.1).
    EXPECT_GT(lo, -1.7f);
    EXPECT_LT(hi, 1.7f);
    for (size_t i = n; i < buf.size(); ++i) ASSERT_EQ(buf[i], 12345.0f) << "wrote past the output";

    std::vector<uint8_t> u8(static_cast<size_t>(S) * S * 3 + 16, 0xA5);
    Augmentation::applyU8(img, reference(S), 5, u8.data());
    for (size_t i = static_cast<size_t>(S) * S * 3; i < u8.size(); ++i) ASSERT_EQ(u8[i], 0xA5);
}

TEST(Augmentation, PlanesAreRgbInChwOrder) {
    cv::Mat rgb(480, 640, CV_8UC3, cv::Scalar(255, 0, 51));  // R=255, G=0, B=51
    const std::vector<float> out = runF(fromMat(rgb), geometryOnly(), 1);
    const size_t plane = 64 * 64;
    EXPECT_FLOAT_EQ(out[0], 1.0f);
    EXPECT_FLOAT_EQ(out[plane], -1.0f);
    EXPECT_NEAR(out[2 * plane], 51 * 2.0 / 255 - 1, 1e-6);
}

TEST(Augmentation, DeterministicPerSeed) {
    const DecodedImage img = fromMat(photo(640, 480));
    AugmentParams p = reference();
    p.flip = true;
    const std::vector<float> a = runF(img, p, 42), b = runF(img, p, 42), c = runF(img, p, 43);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
    EXPECT_NE(std::memcmp(a.data(), c.data(), a.size() * sizeof(float)), 0);
    // Same bytes on any thread, concurrently.
    std::vector<std::vector<float>> results(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int rep = 0; rep < 20; ++rep) results[t] = runF(img, p, 42);
        });
    for (auto& t : threads) t.join();
    for (const auto& r : results) EXPECT_EQ(std::memcmp(a.data(), r.data(), a.size() * sizeof(float)), 0);
}

TEST(Augmentation, NoShiftNoNoiseIsTheCentreCropResized) {
    const cv::Mat rgb = photo(640, 480);
    const std::vector<uint8_t> out = runU8(fromMat(rgb), geometryOnly(64), 9);
    // torchvision CenterCrop(256) of 640x480: left (640-256)/2 = 192, top (480-256)/2 = 112.
    cv::Mat expected;
    cv::resize(rgb(cv::Rect(192, 112, 256, 256)), expected, cv::Size(64, 64), 0, 0, cv::INTER_AREA);
    const cv::Mat got(64, 64, CV_8UC3, const_cast<uint8_t*>(out.data()));
    EXPECT_EQ(cv::norm(got, expected, cv::NORM_INF), 0.0);

    // Odd geometry: 641x479, crop round(3.3 * 48) = 158, left round(241.5) = 242 (half to even), top round(160.5) = 160.
    const cv::Mat odd = photo(641, 479);
    AugmentParams p = geometryOnly(48);
    p.cropFactor = 3.3;
    const std::vector<uint8_t> o2 = runU8(fromMat(odd), p, 3);
    cv::resize(odd(cv::Rect(242, 160, 158, 158)), expected, cv::Size(48, 48), 0, 0, cv::INTER_AREA);
    EXPECT_EQ(cv::norm(cv::Mat(48, 48, CV_8UC3, const_cast<uint8_t*>(o2.data())), expected, cv::NORM_INF), 0.0);

    // Crop factor 1: the crop is already the target size, copied as is.
    p = geometryOnly(64);
    p.cropFactor = 1.0;
    const std::vector<uint8_t> o3 = runU8(fromMat(rgb), p, 3);
    EXPECT_EQ(cv::norm(cv::Mat(64, 64, CV_8UC3, const_cast<uint8_t*>(o3.data())), rgb(cv::Rect(288, 208, 64, 64)), cv::NORM_INF), 0.0);
}

TEST(Augmentation, ReducedJpegMatchesTheFullResolutionPath) {
    const Bytes file = encodeJpeg(photo(640, 480), 95);
    const AugmentParams p = geometryOnly(64);
    const DecodedImage reduced = ImageDecoder::decode(file.data(), file.size(), Augmentation::decodeRequest(p), "a.jpg");
    ASSERT_EQ(reduced.reduction, 4);
    DecodeRequest fullReq = Augmentation::decodeRequest(p);
    fullReq.allowReduction = false;
    const DecodedImage full = ImageDecoder::decode(file.data(), file.size(), fullReq, "a.jpg");
    const std::vector<uint8_t> a = runU8(reduced, p, 1), b = runU8(full, p, 1);
    double mad = 0;
    for (size_t i = 0; i < a.size(); ++i) mad += std::abs(int(a[i]) - int(b[i]));
    mad /= static_cast<double>(a.size());
    std::printf("[ augment ] DCT-reduced vs full-resolution path: mean |diff| %.2f grey levels\n", mad);
    EXPECT_LT(mad, 4.0);
}

TEST(Augmentation, MarkerMovesByTheDrawnShift) {
    // Marker centred at x = 320 (source); output pixel j covers source [192 + 4j, 196 + 4j) - dx.
    // Shifts beyond 100 px would push part of it out of the 256 px crop, so those seeds are skipped.
    const cv::Rect marker(312, 220, 16, 40);
    const DecodedImage img = fromMat(markerImage(640, 480, marker));
    AugmentParams p = geometryOnly(64);
    p.maxShift = 0.2;
    int positive = 0, negative = 0;
    for (uint64_t seed = 0; seed < 40; ++seed) {
        const Augmentation::Draw d = Augmentation::draw(p, 640, seed);
        ASSERT_LE(std::abs(d.shiftSource), 128);
        if (std::abs(d.shiftSource) > 100) continue;
        const double expected = (320.0 + d.shiftSource - 192.0) / 4.0 - 0.5;
        EXPECT_NEAR(brightCentroidX(runU8(img, p, seed), 64), expected, 0.02) << "seed " << seed << " dx " << d.shiftSource;
        positive += d.shiftSource > 10;
        negative += d.shiftSource < -10;
    }
    EXPECT_GT(positive, 5);
    EXPECT_GT(negative, 5);
    // Through the DCT-reduced JPEG path the shift is quantised to 4 source pixels = 1 output pixel.
    const Bytes file = encodeJpeg(markerImage(640, 480, marker), 95);
    const DecodedImage jimg = ImageDecoder::decode(file.data(), file.size(), Augmentation::decodeRequest(p), "m.jpg");
    ASSERT_EQ(jimg.reduction, 4);
    for (uint64_t seed = 0; seed < 20; ++seed) {
        const Augmentation::Draw d = Augmentation::draw(p, 640, seed);
        if (std::abs(d.shiftSource) > 100) continue;
        const double expected = (320.0 + d.shiftSource - 192.0) / 4.0 - 0.5;
        EXPECT_NEAR(brightCentroidX(runU8(jimg, p, seed), 64), expected, 0.65) << "seed " << seed;
    }
}

TEST(Augmentation, ShiftsAreUniformWithinTheLimit) {
    const AugmentParams p = reference();
    int lo = 0, hi = 0;
    double sum = 0;
    const int n = 4000;
    int bins[4] = {0, 0, 0, 0};
    for (int s = 0; s < n; ++s) {
        const int dx = Augmentation::draw(p, 640, static_cast<uint64_t>(s)).shiftSource;
        ASSERT_LE(std::abs(dx), 128);  // 20% of 640
        lo = std::min(lo, dx);
        hi = std::max(hi, dx);
        sum += dx;
        ++bins[std::min(3, (dx + 128) * 4 / 257)];
    }
    EXPECT_LT(lo, -120);
    EXPECT_GT(hi, 120);
    EXPECT_NEAR(sum / n, 0.0, 5.0);
    for (int b : bins) EXPECT_NEAR(b, n / 4, n / 20);
    AugmentParams none = reference();
    none.maxShift = 0;
    for (int s = 0; s < 50; ++s) EXPECT_EQ(Augmentation::draw(none, 640, static_cast<uint64_t>(s)).shiftSource, 0);
}

TEST(Augmentation, BlackFillOnTheShiftedOutSide) {
    // A white square exactly the crop: any shift uncovers black columns (RandomAffine fill=0).
    const DecodedImage img = fromMat(cv::Mat(256, 256, CV_8UC3, cv::Scalar::all(255)));
    AugmentParams p = geometryOnly(64);
    p.maxShift = 0.2;
    bool sawRight = false, sawLeft = false;
    for (uint64_t seed = 0; seed < 60; ++seed) {
        const int dx = Augmentation::draw(p, 256, seed).shiftSource;
        if (std::abs(dx) < 8) continue;
        const std::vector<uint8_t> out = runU8(img, p, seed);
        for (int k = 0; k < 64; ++k) {
            const uint8_t v = out[(32 * 64 + k) * 3];
            // Output column k covers source columns [4k, 4k + 4) of the shifted picture.
            const bool black = dx > 0 ? 4 * k + 4 <= dx : 4 * k >= 256 + dx;
            const bool white = dx > 0 ? 4 * k >= dx : 4 * k + 4 <= 256 + dx;
            if (black) {
                ASSERT_EQ(v, 0) << "dx " << dx << " column " << k;
            }
            if (white) {
                ASSERT_EQ(v, 255) << "dx " << dx << " column " << k;
            }
        }
        (dx > 0 ? sawRight : sawLeft) = true;
        const std::vector<float> f = runF(img, p, seed);
        EXPECT_FLOAT_EQ(f[32 * 64 + (dx > 0 ? 0 : 63)], -1.0f);  // black is -1 after Normalize
    }
    EXPECT_TRUE(sawRight);
    EXPECT_TRUE(sawLeft);
}

TEST(Augmentation, FlipMirrors) {
    const DecodedImage img = fromMat(photo(640, 480));
    AugmentParams p = geometryOnly(64);
    const std::vector<uint8_t> plain = runU8(img, p, 0);
    p.flip = true;
    int flipped = 0;
    for (uint64_t seed = 0; seed < 400; ++seed) {
        const bool f = Augmentation::draw(p, 640, seed).flipped;
        flipped += f;
        if (seed < 20) {
            const std::vector<uint8_t> out = runU8(img, p, seed);
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 64; ++x)
                    for (int c = 0; c < 3; ++c) ASSERT_EQ(out[(y * 64 + x) * 3 + c], plain[(y * 64 + (f ? 63 - x : x)) * 3 + c]) << "seed " << seed;
        }
    }
    EXPECT_NEAR(flipped, 200, 40);  // a fair coin
    p.flip = false;
    for (uint64_t seed = 0; seed < 50; ++seed) EXPECT_FALSE(Augmentation::draw(p, 640, seed).flipped);
}

TEST(Augmentation, NoiseStdIsTwiceTheConfiguredValueInMinusOneToOneUnits) {
    const DecodedImage img = fromMat(photo(640, 480));
    AugmentParams clean = reference();
    clean.noiseStd = 0;
    const AugmentParams noisy = reference();  // std 0.05 in [0, 1] units
    double sum = 0, sum2 = 0, sum4 = 0;
    size_t n = 0;
    for (uint64_t seed = 0; seed < 8; ++seed) {
        const std::vector<float> a = runF(img, clean, seed), b = runF(img, noisy, seed);
        for (size_t i = 0; i < a.size(); ++i) {
            const double d = double(b[i]) - double(a[i]);
            sum += d;
            sum2 += d * d;
            sum4 += d * d * d * d;
            ++n;
        }
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    const double sd = std::sqrt(var), kurt = (sum4 / n) / (var * var);
    std::printf("[ augment ] noise in [-1,1] units: mean %.5f std %.5f kurtosis %.3f over %zu values\n", mean, sd, kurt, n);
    EXPECT_NEAR(mean, 0.0, 0.002);
    EXPECT_NEAR(sd, 0.1, 0.002);  // 2 * 0.05: Normalize(0.5, 0.5) doubles the [0, 1]-unit std
    EXPECT_NEAR(kurt, 3.0, 0.1);  // Gaussian
}

TEST(Augmentation, LoaderPathWithAddNoiseEqualsApply) {
    const DecodedImage img = fromMat(photo(640, 480));
    AugmentParams p = reference();
    p.flip = true;
    const int S = p.size;
    const size_t plane = static_cast<size_t>(S) * S;
    for (uint64_t seed : {1ull, 77ull, 123456789ull}) {
        const std::vector<uint8_t> u8 = runU8(img, p, seed);
        std::vector<float> f(3 * plane);
        for (size_t i = 0; i < plane; ++i)
            for (size_t c = 0; c < 3; ++c) f[c * plane + i] = u8[i * 3 + c] * (2.0f / 255.0f) - 1.0f;
        Augmentation::addNoise(f.data(), static_cast<int64_t>(f.size()), p.noiseStd, seed);
        const std::vector<float> ref = runF(img, p, seed);
        EXPECT_EQ(std::memcmp(f.data(), ref.data(), f.size() * sizeof(float)), 0) << "seed " << seed;
    }
}

TEST(Augmentation, ImageSmallerThanTheCropIsTooSmall) {
    std::vector<float> out(3 * 64 * 64);
    try {
        Augmentation::apply(fromMat(photo(300, 200)), reference(64), 1, out.data());
        ADD_FAILURE() << "a 300x200 image cannot give a 256 px crop";
    } catch (const BadImageError& e) {
        EXPECT_EQ(e.reason(), BadImageReason::TooSmall);
        EXPECT_NE(std::string(e.what()).find("300x200"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(Augmentation::apply(fromMat(photo(256, 256)), reference(64), 1, out.data()));
    DecodedImage broken = fromMat(photo(640, 480));
    broken.rgb.resize(10);
    EXPECT_THROW(Augmentation::apply(broken, reference(64), 1, out.data()), DataError);
}

TEST(Augmentation, UnusualGeometriesWork) {
    const DecodedImage img = fromMat(photo(641, 479));
    for (double crop : {0.5, 1.0, 2.7, 4.0, 7.4}) {
        for (int size : {1, 17, 64}) {
            AugmentParams p;
            p.size = size;
            p.cropFactor = crop;
            p.maxShift = 1.0;
            p.flip = true;
            if (Augmentation::cropSide(p) > 479) continue;
            for (uint64_t seed = 0; seed < 10; ++seed) {
                const std::vector<float> f = runF(img, p, seed);
                for (float v : f) ASSERT_TRUE(std::isfinite(v)) << "crop " << crop << " size " << size;
            }
        }
    }
    // A reduced JPEG whose crop does not divide evenly by the reduction.
    const Bytes file = encodeJpeg(photo(645, 483));
    AugmentParams p = reference(40);
    p.cropFactor = 4.3;  // 172 px crop -> reduction 4 -> 43 decoded px -> 40 output px
    const DecodedImage j = ImageDecoder::decode(file.data(), file.size(), Augmentation::decodeRequest(p), "odd.jpg");
    EXPECT_EQ(j.reduction, 4);
    for (uint64_t seed = 0; seed < 20; ++seed) EXPECT_NO_THROW(runF(j, p, seed));
}
