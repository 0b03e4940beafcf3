// InversionTarget (issue 44 item 1): a photo made into the generator's input space (centred square,
// resize, normalisation, --crop), and every bad input refused with its one line naming the file:
// not an image, too small, a header too large to decode (before decoding), a crop outside.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/util/Errors.h"
#include "ml/dataset/ImageDecoder.h"
#include "ml/invert/InversionTarget.h"
#include "support/ErrorText.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

using streetgan::test::messageOf;

namespace {

void writeBytes(const std::string& path, const std::vector<uchar>& bytes) {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// An RGB JPEG of w x h noise written to `path`.
void writeJpeg(const std::string& path, int w, int h) {
    cv::Mat m(h, w, CV_8UC3);
    cv::randu(m, 0, 255);
    std::vector<uchar> bytes;
    cv::imencode(".jpg", m, bytes);
    writeBytes(path, bytes);
}

}  // namespace

TEST(InversionTarget, LoadsCentredSquareNormalised) {
    TempDir dir;
    // A 96 x 64 PNG: left third black, middle third white, right third black. The centred 64 x 64
    // square holds 16 px of black, 32 white, 16 black, resized to 32: 8 + 16 + 8.
    cv::Mat m(64, 96, CV_8UC3, cv::Scalar(0, 0, 0));
    m(cv::Rect(32, 0, 32, 64)).setTo(cv::Scalar(255, 255, 255));
    std::vector<uchar> png;
    cv::imencode(".png", m, png);
    writeBytes(dir.path() / "bars.png", png);
    const at::Tensor t = InversionTarget::load(dir.path() / "bars.png", 32);
    ASSERT_EQ(t.sizes(), (std::vector<int64_t>{3, 32, 32}));
    EXPECT_FLOAT_EQ(t[0][5][2].item<float>(), -1.0f);
    EXPECT_FLOAT_EQ(t[1][5][12].item<float>(), 1.0f);
    EXPECT_FLOAT_EQ(t[2][5][29].item<float>(), -1.0f);
    // A crop of the white band alone.
    const at::Tensor w = InversionTarget::load(dir.path() / "bars.png", 32, CropRect{32, 0, 32, 64});
    EXPECT_FLOAT_EQ(w.min().item<float>(), 1.0f);
    EXPECT_TRUE(torch::equal(InversionTarget::toPixels(t)[5][12], torch::full({3}, 255, torch::kByte)));
}

TEST(InversionTarget, BadInputsOneLineEach) {
    TempDir dir;
    const std::string text = dir.path() / "notes.jpg";
    std::ofstream(text) << "not a photo\n";
    std::string m = messageOf<BadImageError>([&] { InversionTarget::load(text, 64); });
    EXPECT_NE(m.find("'" + text + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("not an image"), std::string::npos) << m;

    const std::string small = dir.path() / "small.jpg";
    writeJpeg(small, 40, 31);  // short side 31 < 32, half of 64
    m = messageOf<DataError>([&] { InversionTarget::load(small, 64); });
    EXPECT_NE(m.find("too small"), std::string::npos) << m;
    EXPECT_NE(m.find("32 px"), std::string::npos) << m;
    EXPECT_NO_THROW(InversionTarget::load(small, 62));

    // A JPEG whose header declares 65535 x 65535: refused before decoding.
    cv::Mat noise(48, 64, CV_8UC3);
    cv::randu(noise, 0, 255);
    std::vector<uchar> j;
    cv::imencode(".jpg", noise, j);
    for (size_t i = 2; i + 9 < j.size(); ++i)
        if (j[i] == 0xFF && j[i + 1] == 0xC0) {
            j[i + 5] = j[i + 6] = j[i + 7] = j[i + 8] = 0xFF;
            break;
        }
    writeBytes(dir.path() / "huge.jpg", j);
    try {
        InversionTarget::load(dir.path() / "huge.jpg", 64);
        ADD_FAILURE() << "a 65535 x 65535 header was accepted";
    } catch (const BadImageError& e) {
        EXPECT_EQ(e.reason(), BadImageReason::TooLarge) << e.what();
    }

    const std::string photo = dir.path() / "photo.jpg";
    writeJpeg(photo, 200, 100);
    m = messageOf<ConfigError>([&] { InversionTarget::load(photo, 64, CropRect{150, 0, 64, 64}); });
    EXPECT_NE(m.find("outside"), std::string::npos) << m;
    EXPECT_NE(m.find("200x100"), std::string::npos) << m;
    m = messageOf<DataError>([&] { InversionTarget::load(photo, 64, CropRect{0, 0, 100, 20}); });
    EXPECT_NE(m.find("too small"), std::string::npos) << m;
    EXPECT_EQ(InversionTarget::load(photo, 64, CropRect{136, 36, 64, 64}).size(1), 64);
    for (const std::string bad : {"1,2,3", "1,2,3,0", "a,b,c,d", "-1,0,5,5", "1,2,3,4,5", "1;2;3;4"})
        EXPECT_THROW(InversionTarget::parseCrop(bad), ConfigError) << bad;
    EXPECT_THROW(InversionTarget::load(dir.path() / "missing.jpg", 64), IoError);
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}
