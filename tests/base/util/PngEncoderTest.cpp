// PngEncoder against an independent decoder (OpenCV's libpng): every pixel back, every channel
// count, compression level, stride and odd size; sizes in line with libpng's own encoder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/util/Errors.h"
#include "base/util/PngEncoder.h"

using namespace streetgan;

namespace {

cv::Mat decode(const std::string& png) {
    return cv::imdecode(cv::Mat(1, static_cast<int>(png.size()), CV_8UC1, const_cast<char*>(png.data())), cv::IMREAD_UNCHANGED);
}

// A street-like test image: smooth gradients, a few edges, some noise (what grids hold).
std::vector<uint8_t> image(int w, int h, int c, uint32_t seed, int noise) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(-noise, noise);
    std::vector<uint8_t> px(static_cast<size_t>(w) * static_cast<size_t>(h) * static_cast<size_t>(c));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int k = 0; k < c; ++k) {
                int v = (x * 255 / std::max(1, w - 1) + y * 3 + k * 40 + ((x / 8 + y / 8) % 2) * 60) % 256 + (noise ? d(rng) : 0);
                px[(static_cast<size_t>(y) * w + x) * c + k] = static_cast<uint8_t>(std::clamp(v, 0, 255));
            }
    return px;
}

// OpenCV decodes to BGR(A); back to the encoder's RGB(A) order.
std::vector<uint8_t> asRgb(const cv::Mat& m) {
    cv::Mat rgb = m;
    if (m.channels() == 3) cv::cvtColor(m, rgb, cv::COLOR_BGR2RGB);
    if (m.channels() == 4) cv::cvtColor(m, rgb, cv::COLOR_BGRA2RGBA);
    return std::vector<uint8_t>(rgb.data, rgb.data + rgb.total() * rgb.elemSize());
}

}  // namespace

TEST(PngEncoder, EveryPixelComesBackThroughLibpng) {
    for (int c : {1, 3, 4})
        for (int level : {0, 1, 6, 9})
            for (auto [w, h] : {std::pair{1, 1}, {7, 5}, {64, 64}, {130, 34}}) {
                const auto px = image(w, h, c, static_cast<uint32_t>(w * 31 + c), 20);
                const cv::Mat m = decode(PngEncoder::encode(px.data(), w, h, c, level));
                ASSERT_FALSE(m.empty()) << c << " channels, level " << level << ", " << w << "x" << h;
                EXPECT_EQ(m.cols, w);
                EXPECT_EQ(m.rows, h);
                EXPECT_EQ(m.channels(), c);
                EXPECT_EQ(m.depth(), CV_8U);
                EXPECT_EQ(asRgb(m), px) << c << " channels, level " << level << ", " << w << "x" << h;
            }
}

TEST(PngEncoder, StrideSkipsPadding) {
    const int w = 9, h = 4, stride = 9 * 3 + 5;
    const auto px = image(w, h, 3, 3, 10);
    std::vector<uint8_t> padded(static_cast<size_t>(stride) * h, 0xEE);
    for (int y = 0; y < h; ++y) std::memcpy(&padded[static_cast<size_t>(y) * stride], &px[static_cast<size_t>(y) * w * 3], w * 3);
    EXPECT_EQ(asRgb(decode(PngEncoder::encode(padded.data(), w, h, 3, 6, stride))), px);
}

TEST(PngEncoder, CompressesLikeLibpng) {
    // Smooth content (a sample grid's kind) and noisy content: within 10% of libpng's size at the
    // same level, and well below the stored (level 0) size.
    for (int noise : {0, 12}) {
        const int w = 256, h = 192;
        const auto px = image(w, h, 3, 9, noise);
        cv::Mat bgr;
        cv::cvtColor(cv::Mat(h, w, CV_8UC3, const_cast<uint8_t*>(px.data())), bgr, cv::COLOR_RGB2BGR);
        std::vector<uchar> ref;
        ASSERT_TRUE(cv::imencode(".png", bgr, ref, {cv::IMWRITE_PNG_COMPRESSION, 6, cv::IMWRITE_PNG_STRATEGY, cv::IMWRITE_PNG_STRATEGY_DEFAULT}));
        const std::string ours = PngEncoder::encode(px.data(), w, h, 3, 6);
        EXPECT_LT(static_cast<double>(ours.size()), 1.1 * static_cast<double>(ref.size())) << "noise " << noise;
        EXPECT_LT(static_cast<double>(ours.size()), 0.8 * static_cast<double>(PngEncoder::encode(px.data(), w, h, 3, 0).size())) << "noise " << noise;
    }
}

TEST(PngEncoder, RefusesBadShapes) {
    const uint8_t px[16] = {};
    EXPECT_THROW(PngEncoder::encode(px, 2, 2, 2), DataError);
    EXPECT_THROW(PngEncoder::encode(px, 0, 2, 3), DataError);
    EXPECT_THROW(PngEncoder::encode(px, 2, -1, 3), DataError);
    EXPECT_THROW(PngEncoder::encode(px, 1, 1, 3, 10), DataError);
    EXPECT_THROW(PngEncoder::encode(px, 2, 2, 3, 6, 5), DataError);  // stride shorter than a row
}
