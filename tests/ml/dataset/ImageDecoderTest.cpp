#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "base/util/Errors.h"
#include "base/util/SeedHash.h"
#include "ml/dataset/ImageDecoder.h"

using namespace streetgan;

namespace {

using Bytes = std::vector<uint8_t>;

/// A photo-like RGB test picture: gradients, a checkerboard band, a marker rectangle and a
/// little texture so that the JPEG has realistic entropy.
cv::Mat makeRgb(int w, int h) {
    cv::Mat img(h, w, CV_8UC3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            auto* p = img.ptr<uint8_t>(y) + 3 * x;
            p[0] = static_cast<uint8_t>(40 + 180 * x / w);                                   // R: left-right gradient
            p[1] = static_cast<uint8_t>(30 + 200 * y / h);                                   // G: top-bottom gradient
            p[2] = static_cast<uint8_t>((y > h / 2 && ((x / 16 + y / 16) % 2)) ? 220 : 60);  // B: checkerboard, lower half
        }
    cv::rectangle(img, cv::Rect(w / 2 - 20, h / 2 - 20, 40, 40), cv::Scalar(255, 255, 255), cv::FILLED);
    cv::Mat noise(h, w, CV_16SC3);
    cv::theRNG().state = 12345;
    cv::randn(noise, cv::Scalar::all(0), cv::Scalar::all(6));
    cv::Mat noisy;
    cv::add(img, noise, noisy, cv::noArray(), CV_8UC3);
    return noisy;
}

Bytes encode(const cv::Mat& rgb, const std::string& ext, std::vector<int> params = {}) {
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    std::vector<uchar> buf;
    EXPECT_TRUE(cv::imencode(ext, bgr, buf, params));
    return Bytes(buf.begin(), buf.end());
}

Bytes jpeg(int w, int h, int quality = 90) { return encode(makeRgb(w, h), ".jpg", {cv::IMWRITE_JPEG_QUALITY, quality}); }

DecodeRequest request(int crop, int target) {
    DecodeRequest r;
    r.cropSide = crop;
    r.targetSide = target;
    return r;
}

cv::Mat asMat(DecodedImage& d) { return cv::Mat(d.height, d.width, CV_8UC3, d.rgb.data()); }

/// The reason decode() fails with, checking the exception contract along the way.
// This process's mapped address space (VmSize), in bytes.
uint64_t mappedBytes() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    char line[256];
    uint64_t kb = 0;
    while (f && std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "VmSize: %lu kB", &kb) == 1) break;
    if (f) std::fclose(f);
    return kb * 1024;
}

BadImageReason reasonOf(const Bytes& bytes, size_t size, const DecodeRequest& req = {}) {
    try {
        ImageDecoder::decode(bytes.data(), size, req, "street/img_001.jpg");
    } catch (const BadImageError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("street/img_001.jpg"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
        const DataError* asData = &e;  // a DataError for the loader's generic handling
        EXPECT_NE(asData, nullptr);
        return e.reason();
    }
    ADD_FAILURE() << "decoded " << size << " bytes without error";
    return BadImageReason::Empty;
}

double meanAbsDiff(const cv::Mat& a, const cv::Mat& b) {
    cv::Mat d;
    cv::absdiff(a, b, d);
    const cv::Scalar m = cv::mean(d);
    return (m[0] + m[1] + m[2]) / 3.0;
}

}  // namespace

// ------------------------------------------------------------------------------ rule

TEST(ImageDecoder, ChoosesTheLargestReductionThatKeepsTheTargetPixels) {
    // Reference augmentation at 64 px: a 256 px crop needs 64 decoded pixels -> 1/4.
    EXPECT_EQ(ImageDecoder::chooseReduction(256, 64), 4);  // 256/4 = 64 >= 64, 256/8 = 32 < 64
    EXPECT_EQ(ImageDecoder::chooseReduction(256, 65), 2);  // 256/4 = 64 < 65
    EXPECT_EQ(ImageDecoder::chooseReduction(256, 128), 2);
    EXPECT_EQ(ImageDecoder::chooseReduction(256, 129), 1);
    EXPECT_EQ(ImageDecoder::chooseReduction(512, 64), 8);
    EXPECT_EQ(ImageDecoder::chooseReduction(1024, 64), 8);  // 8 is libjpeg's largest
    // The whole short side of a 640x480 photo as the region: 480/4 = 120 >= 64 but 480/8 = 60 < 64.
    EXPECT_EQ(ImageDecoder::chooseReduction(480, 64), 4);
    EXPECT_EQ(ImageDecoder::chooseReduction(480, 60), 8);
    // ... and 256 px from it: 480/2 = 240 < 256, so no reduction.
    EXPECT_EQ(ImageDecoder::chooseReduction(480, 256), 1);
    EXPECT_EQ(ImageDecoder::chooseReduction(480, 240), 2);
    EXPECT_EQ(ImageDecoder::chooseReduction(0, 64), 1);
    EXPECT_EQ(ImageDecoder::chooseReduction(256, 0), 1);
}

TEST(ImageDecoder, ReasonNamesAreStable) {
    EXPECT_STREQ(ImageDecoder::reasonName(BadImageReason::Empty), "empty");
    EXPECT_STREQ(ImageDecoder::reasonName(BadImageReason::NotAnImage), "not-an-image");
    EXPECT_STREQ(ImageDecoder::reasonName(BadImageReason::Truncated), "truncated");
    EXPECT_STREQ(ImageDecoder::reasonName(BadImageReason::Corrupt), "corrupt");
    EXPECT_STREQ(ImageDecoder::reasonName(BadImageReason::Unsupported), "unsupported");
    EXPECT_STREQ(ImageDecoder::reasonName(BadImageReason::TooSmall), "too-small");
    EXPECT_STREQ(ImageDecoder::reasonName(BadImageReason::TooLarge), "too-large");
}

// ------------------------------------------------------------------------------ good images

TEST(ImageDecoder, JpegIsDecodedReducedAsTheRequestAllows) {
    const Bytes file = jpeg(640, 480);
    struct Case {
        int crop, target, factor, w, h;
    };
    for (const Case& c : {Case{256, 64, 4, 160, 120}, Case{256, 256, 1, 640, 480}, Case{256, 128, 2, 320, 240}, Case{480, 64, 4, 160, 120},
                          Case{100, 10, 8, 80, 60}, Case{0, 0, 1, 640, 480}}) {
        const DecodedImage d = ImageDecoder::decode(file.data(), file.size(), request(c.crop, c.target), "a.jpg");
        EXPECT_EQ(d.reduction, c.factor) << c.crop << " -> " << c.target;
        EXPECT_EQ(d.width, c.w);
        EXPECT_EQ(d.height, c.h);
        EXPECT_EQ(d.sourceWidth, 640);
        EXPECT_EQ(d.sourceHeight, 480);
        EXPECT_EQ(d.format, ImageFormat::Jpeg);
        EXPECT_EQ(d.rgb.size(), static_cast<size_t>(c.w) * c.h * 3);
    }
    DecodeRequest full = request(256, 64);
    full.allowReduction = false;
    EXPECT_EQ(ImageDecoder::decode(file.data(), file.size(), full, "a.jpg").reduction, 1);
}

TEST(ImageDecoder, ReducedSizesRoundUpLikeLibjpeg) {
    const Bytes file = jpeg(645, 483);
    const DecodedImage d = ImageDecoder::decode(file.data(), file.size(), request(400, 50), "odd.jpg");
    EXPECT_EQ(d.reduction, 8);
    EXPECT_EQ(d.width, 81);   // ceil(645 / 8)
    EXPECT_EQ(d.height, 61);  // ceil(483 / 8)
}

TEST(ImageDecoder, ReducedJpegIsCloseToAFullDecodeDownscaled) {
    const Bytes file = jpeg(640, 480, 95);
    DecodeRequest fullReq = request(256, 64);
    fullReq.allowReduction = false;
    DecodedImage full = ImageDecoder::decode(file.data(), file.size(), fullReq, "a.jpg");
    for (int f : {2, 4, 8}) {
        DecodedImage reduced = ImageDecoder::decode(file.data(), file.size(), request(480, 480 / f), "a.jpg");
        ASSERT_EQ(reduced.reduction, f);
        cv::Mat area;
        cv::resize(asMat(full), area, cv::Size(reduced.width, reduced.height), 0, 0, cv::INTER_AREA);
        const double mad = meanAbsDiff(area, asMat(reduced));
        std::printf("[ decode ] DCT 1/%d vs full decode + INTER_AREA: mean |diff| %.2f grey levels\n", f, mad);
        EXPECT_LT(mad, 4.0) << "reduction " << f;
        // Same picture: the marker rectangle is in the same place.
        const cv::Rect marker(320 / f - 20 / f + 1, 240 / f - 20 / f + 1, 40 / f - 2, 40 / f - 2);
        EXPECT_GT(cv::mean(asMat(reduced)(marker))[2], 200.0) << "reduction " << f;
    }
}

TEST(ImageDecoder, KeepsRgbChannelOrder) {
    cv::Mat red(64, 64, CV_8UC3, cv::Scalar(230, 20, 10));  // RGB
    for (const std::string ext : {".jpg", ".png"}) {
        const Bytes file = encode(red, ext);
        DecodedImage d = ImageDecoder::decode(file.data(), file.size(), {}, "red" + ext);
        const cv::Scalar m = cv::mean(asMat(d));
        EXPECT_NEAR(m[0], 230, 4) << ext;
        EXPECT_NEAR(m[1], 20, 4) << ext;
        EXPECT_NEAR(m[2], 10, 4) << ext;
    }
}

TEST(ImageDecoder, PngDecodesExactlyAndIsNeverReduced) {
    const cv::Mat rgb = makeRgb(640, 480);
    const Bytes file = encode(rgb, ".png");
    DecodedImage d = ImageDecoder::decode(file.data(), file.size(), request(256, 64), "a.png");
    EXPECT_EQ(d.format, ImageFormat::Png);
    EXPECT_EQ(d.reduction, 1);  // other formats decode at full size; the augmentation resizes
    ASSERT_EQ(d.width, 640);
    ASSERT_EQ(d.height, 480);
    EXPECT_EQ(cv::norm(asMat(d), rgb, cv::NORM_INF), 0.0);
}

TEST(ImageDecoder, PngWithAlphaAndGreyBecomesRgb) {
    cv::Mat bgra(50, 70, CV_8UC4, cv::Scalar(10, 20, 30, 128));
    std::vector<uchar> buf;
    ASSERT_TRUE(cv::imencode(".png", bgra, buf));
    DecodedImage d = ImageDecoder::decode(buf.data(), buf.size(), {}, "alpha.png");
    EXPECT_EQ(d.width, 70);
    EXPECT_EQ(d.height, 50);
    EXPECT_NEAR(cv::mean(asMat(d))[0], 30.0, 1e-9);  // R
    cv::Mat grey(40, 30, CV_8UC1, cv::Scalar(77));
    ASSERT_TRUE(cv::imencode(".jpg", grey, buf));
    d = ImageDecoder::decode(buf.data(), buf.size(), {}, "grey.jpg");
    EXPECT_EQ(d.rgb.size(), 40u * 30u * 3u);
    EXPECT_NEAR(cv::mean(asMat(d))[1], 77, 2);
}

TEST(ImageDecoder, WebPDecodesWhenOpenCvHasIt) {
    if (!cv::haveImageWriter(".webp")) GTEST_SKIP() << "this OpenCV build has no WebP codec";
    const cv::Mat rgb = makeRgb(640, 480);
    for (int quality : {90, 101}) {  // lossy (VP8) and lossless (VP8L)
        const Bytes file = encode(rgb, ".webp", {cv::IMWRITE_WEBP_QUALITY, quality});
        const ImageInfo info = ImageDecoder::probe(file.data(), file.size(), "a.webp");
        EXPECT_EQ(info.format, ImageFormat::WebP);
        EXPECT_EQ(info.width, 640);
        EXPECT_EQ(info.height, 480);
        DecodedImage d = ImageDecoder::decode(file.data(), file.size(), request(256, 64), "a.webp");
        EXPECT_EQ(d.reduction, 1);
        ASSERT_EQ(d.width, 640);
        EXPECT_LT(meanAbsDiff(asMat(d), rgb), quality > 100 ? 0.01 : 6.0) << "quality " << quality;
        EXPECT_EQ(reasonOf(file, file.size() - 1), BadImageReason::Truncated);
        EXPECT_EQ(reasonOf(file, file.size() / 2), BadImageReason::Truncated);
        EXPECT_EQ(reasonOf(file, 10), BadImageReason::Truncated);
    }
}

TEST(ImageDecoder, ProbeReadsTheHeaderOnly) {
    const Bytes j = jpeg(333, 222);
    ImageInfo info = ImageDecoder::probe(j.data(), j.size(), "x");
    EXPECT_EQ(info.format, ImageFormat::Jpeg);
    EXPECT_EQ(info.width, 333);
    EXPECT_EQ(info.height, 222);
    const Bytes p = encode(makeRgb(123, 45), ".png");
    info = ImageDecoder::probe(p.data(), p.size(), "x");
    EXPECT_EQ(info.format, ImageFormat::Png);
    EXPECT_EQ(info.width, 123);
    EXPECT_EQ(info.height, 45);
}

TEST(ImageDecoder, ToleratesBytesAfterTheEndMarker) {
    Bytes file = jpeg(320, 240);
    for (int i = 0; i < 1000; ++i) file.push_back(static_cast<uint8_t>(i * 7));
    const DecodedImage d = ImageDecoder::decode(file.data(), file.size(), {}, "trailer.jpg");
    EXPECT_EQ(d.width, 320);
    Bytes png = encode(makeRgb(32, 32), ".png");
    png.insert(png.end(), 16, 0);
    EXPECT_EQ(ImageDecoder::decode(png.data(), png.size(), {}, "p.png").width, 32);
}

TEST(ImageDecoder, ProgressiveRestartAndThumbnailJpegs) {
    const cv::Mat rgb = makeRgb(320, 240);
    const std::vector<std::vector<int>> variants = {
        {cv::IMWRITE_JPEG_PROGRESSIVE, 1}, {cv::IMWRITE_JPEG_RST_INTERVAL, 4}, {cv::IMWRITE_JPEG_OPTIMIZE, 1, cv::IMWRITE_JPEG_CHROMA_QUALITY, 50}};
    for (const auto& params : variants) {
        const Bytes file = encode(rgb, ".jpg", params);
        const DecodedImage d = ImageDecoder::decode(file.data(), file.size(), request(240, 60), "v.jpg");
        EXPECT_EQ(d.width, 80);
        EXPECT_EQ(d.reduction, 4);
        for (size_t cut : {file.size() / 3, file.size() - 2, file.size() - 1})
            EXPECT_EQ(reasonOf(file, cut), BadImageReason::Truncated) << "option " << params[0] << " cut " << cut;
    }
    // An EXIF-style APP1 segment holding a complete thumbnail JPEG (with its own FFD9) must not be
    // mistaken for the image or its end.
    const Bytes thumb = jpeg(40, 30);
    const Bytes main = jpeg(320, 240);
    Bytes withThumb(main.begin(), main.begin() + 2);
    const size_t segLen = 2 + 6 + thumb.size();
    ASSERT_LT(segLen, 65536u);
    const uint8_t app1[] = {0xFF, 0xE1, static_cast<uint8_t>(segLen >> 8), static_cast<uint8_t>(segLen & 0xFF), 'E', 'x', 'i', 'f', 0, 0};
    withThumb.insert(withThumb.end(), app1, app1 + sizeof(app1));
    withThumb.insert(withThumb.end(), thumb.begin(), thumb.end());
    const size_t afterApp1 = withThumb.size();
    withThumb.insert(withThumb.end(), main.begin() + 2, main.end());
    const ImageInfo info = ImageDecoder::probe(withThumb.data(), withThumb.size(), "exif.jpg");
    EXPECT_EQ(info.width, 320);
    EXPECT_EQ(info.height, 240);
    EXPECT_EQ(ImageDecoder::decode(withThumb.data(), withThumb.size(), {}, "exif.jpg").width, 320);
    EXPECT_EQ(reasonOf(withThumb, afterApp1), BadImageReason::Truncated);
    EXPECT_EQ(reasonOf(withThumb, afterApp1 + 200), BadImageReason::Truncated);
}

// ------------------------------------------------------------------------------ bad input

TEST(ImageDecoder, EmptyFile) {
    const Bytes none;
    EXPECT_EQ(reasonOf(none, 0), BadImageReason::Empty);
    EXPECT_THROW(ImageDecoder::decode(nullptr, 0, {}, "x.jpg"), BadImageError);
    EXPECT_THROW(ImageDecoder::decode(nullptr, 0, {}, "x.jpg"), DataError);
}

TEST(ImageDecoder, NonImagesWithImageNames) {
    const std::string text = "This is not a JPEG, just a text file named photo.jpg\n";
    const std::string html = "<!DOCTYPE html><html><body>403 Forbidden</body></html>";
    for (const std::string& s : {text, html, std::string("GIF89a\x01\x00\x01\x00", 10), std::string("BM\x36\x00\x00\x00", 6),
                                 std::string("RIFF\x24\x00\x00\x00WAVEfmt ", 16), std::string("x"), std::string("\x89", 1)}) {
        const Bytes b(s.begin(), s.end());
        EXPECT_EQ(reasonOf(b, b.size()), BadImageReason::NotAnImage) << s;
    }
}

TEST(ImageDecoder, TruncatedJpegAtManyPointsIncludingJustBeforeEoi) {
    const Bytes file = jpeg(640, 480);
    const size_t n = file.size();
    ASSERT_EQ(file[n - 2], 0xFF);
    ASSERT_EQ(file[n - 1], 0xD9);
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t cut :
         {size_t(2), size_t(3), size_t(4), size_t(20), size_t(100), size_t(400), size_t(700), n / 10, n / 4, n / 2, 3 * n / 4, n - 100, n - 3, n - 2, n - 1}) {
        EXPECT_EQ(reasonOf(file, cut), BadImageReason::Truncated) << "cut at " << cut << " of " << n;
    }
    // A download that stopped and was padded with zeros to its announced size.
    Bytes padded(file.begin(), file.begin() + static_cast<long>(n / 2));
    padded.resize(n, 0);
    EXPECT_EQ(reasonOf(padded, padded.size()), BadImageReason::Truncated);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 1.0) << "rejecting truncated files must be quick";
}

TEST(ImageDecoder, TruncatedPng) {
    const Bytes file = encode(makeRgb(200, 150), ".png");
    const size_t n = file.size();
    for (size_t cut : {size_t(2), size_t(5), size_t(8), size_t(20), size_t(33), n / 2, n - 12, n - 4, n - 1})
        EXPECT_EQ(reasonOf(file, cut), BadImageReason::Truncated) << "cut at " << cut << " of " << n;
}

TEST(ImageDecoder, CorruptData) {
    // PNG with a damaged IDAT: the walk passes, libpng's CRC check fails.
    Bytes png = encode(makeRgb(200, 150), ".png");
    png[png.size() / 2] ^= 0x55;
    EXPECT_EQ(reasonOf(png, png.size()), BadImageReason::Corrupt);
    // JPEG whose frame header claims a zero width.
    Bytes j = jpeg(64, 48);
    size_t sof = 0;
    for (size_t i = 2; i + 9 < j.size(); ++i)
        if (j[i] == 0xFF && j[i + 1] == 0xC0) {
            sof = i;
            break;
        }
    ASSERT_GT(sof, 0u);
    Bytes zeroWidth = j;
    zeroWidth[sof + 7] = 0;
    zeroWidth[sof + 8] = 0;
    EXPECT_EQ(reasonOf(zeroWidth, zeroWidth.size()), BadImageReason::Corrupt);
    // 12-bit precision: valid JPEG, but not for this decoder.
    Bytes twelve = j;
    twelve[sof + 4] = 12;
    EXPECT_EQ(reasonOf(twelve, twelve.size()), BadImageReason::Unsupported);
    // A segment length pointing at the wrong place.
    Bytes badLen = j;
    badLen[4] = 0x00;
    badLen[5] = 0x01;
    EXPECT_EQ(reasonOf(badLen, badLen.size()), BadImageReason::Corrupt);
    // SOI immediately followed by EOI.
    const Bytes soiEoi = {0xFF, 0xD8, 0xFF, 0xD9};
    EXPECT_EQ(reasonOf(soiEoi, soiEoi.size()), BadImageReason::Corrupt);
}

TEST(ImageDecoder, HugeHeaderIsRejectedBeforeDecoding) {
    Bytes j = jpeg(64, 48);
    for (size_t i = 2; i + 9 < j.size(); ++i)
        if (j[i] == 0xFF && j[i + 1] == 0xC0) {
            j[i + 5] = j[i + 6] = j[i + 7] = j[i + 8] = 0xFF;  // 65535 x 65535
            break;
        }
    EXPECT_EQ(reasonOf(j, j.size()), BadImageReason::TooLarge);
    // Before decoding, shown by memory rather than by time: in a child that may map only 512 MB
    // more than it has, far from the 12.9 GB a 65535 x 65535 decode needs, it is still TooLarge.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        rlimit limit{};
        limit.rlim_cur = limit.rlim_max = mappedBytes() + (512ull << 20);
        if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(100);
        BadImageReason reason = BadImageReason::Corrupt;
        try {
            ImageDecoder::decode(j.data(), j.size(), {}, "street/huge.jpg");
            ::_exit(101);
        } catch (const BadImageError& e) {
            reason = e.reason();
        } catch (...) {
            ::_exit(102);  // e.g. std::bad_alloc: it tried to allocate the image
        }
        ::_exit(static_cast<int>(reason));
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), static_cast<int>(BadImageReason::TooLarge));
    DecodeRequest tight;
    tight.maxSourcePixels = 1000;
    const Bytes small = jpeg(64, 48);
    EXPECT_EQ(reasonOf(small, small.size(), tight), BadImageReason::TooLarge);
}

// Issue 41 item 15: memory follows what the header declares, so declared sizes are bounded before
// decoding: 10000 x 10000 is over the 40 Mpx cap (a 97 KB PNG and a 286-byte JPEG declaring it
// were both decoded before), and a header declaring more pixels than its bytes can hold is corrupt.
TEST(ImageDecoder, DeclaredSizesAreBoundedBeforeDecoding) {
    const auto withSize = [](Bytes j, int w, int h) {
        for (size_t i = 2; i + 9 < j.size(); ++i)
            if (j[i] == 0xFF && j[i + 1] == 0xC0) {
                j[i + 5] = static_cast<uint8_t>(h >> 8), j[i + 6] = static_cast<uint8_t>(h);
                j[i + 7] = static_cast<uint8_t>(w >> 8), j[i + 8] = static_cast<uint8_t>(w);
                break;
            }
        return j;
    };
    const Bytes tenK = withSize(jpeg(64, 48), 10000, 10000);
    EXPECT_EQ(reasonOf(tenK, tenK.size()), BadImageReason::TooLarge);
    const Bytes png10k = [] {
        Bytes p = encode(makeRgb(64, 48), ".png");
        p[16] = 0, p[17] = 0, p[18] = 0x27, p[19] = 0x10;  // IHDR width 10000
        p[20] = 0, p[21] = 0, p[22] = 0x27, p[23] = 0x10;  // height 10000 (the CRC is not what is checked first)
        return p;
    }();
    EXPECT_EQ(reasonOf(png10k, png10k.size()), BadImageReason::TooLarge);
    // Under the cap, but 36 Mpx declared by about a kilobyte: corrupt, and the message says why.
    const Bytes fake = withSize(jpeg(64, 48, 50), 6000, 6000);
    ASSERT_LT(fake.size(), 36'000'000u / DecodeRequest::kMaxPixelsPerByte);
    try {
        ImageDecoder::decode(fake.data(), fake.size(), {}, "street/fake.jpg");
        ADD_FAILURE() << "a kilobyte declaring 6000x6000 was decoded";
    } catch (const BadImageError& e) {
        EXPECT_EQ(e.reason(), BadImageReason::Corrupt);
        EXPECT_NE(std::string(e.what()).find("more pixels than its"), std::string::npos) << e.what();
    }
    // Real photos are far inside both bounds: 12 Mpx at JPEG quality 20 decodes.
    const Bytes photo = jpeg(4000, 3000, 20);
    EXPECT_NO_THROW(ImageDecoder::decode(photo.data(), photo.size(), {}, "street/photo.jpg"));
}

TEST(ImageDecoder, ImageSmallerThanTheCrop) {
    const Bytes small = jpeg(320, 240);
    EXPECT_EQ(reasonOf(small, small.size(), request(256, 64)), BadImageReason::TooSmall);
    EXPECT_NO_THROW(ImageDecoder::decode(small.data(), small.size(), request(240, 64), "exact.jpg"));
    const Bytes png = encode(makeRgb(300, 200), ".png");
    EXPECT_EQ(reasonOf(png, png.size(), request(256, 64)), BadImageReason::TooSmall);
}

TEST(ImageDecoder, RandomDamageNeverCrashesOrHangs) {
    // Bit flips, zeroed runs and cuts anywhere: every outcome is an image or a BadImageError.
    const Bytes j = jpeg(160, 120);
    const Bytes p = encode(makeRgb(96, 64), ".png");
    const auto t0 = std::chrono::steady_clock::now();
    int decoded = 0, rejected = 0;
    for (uint64_t k = 0; k < 400; ++k) {
        Bytes b = (k % 2) ? j : p;
        uint64_t h = SeedHash::of(99, k);
        const int edits = 1 + static_cast<int>(h % 8);
        for (int e = 0; e < edits; ++e) {
            h = SeedHash::mix(h);
            const size_t at = static_cast<size_t>(h % b.size());
            switch ((h >> 32) % 3) {
                case 0:
                    b[at] ^= static_cast<uint8_t>(1u << ((h >> 40) % 8));
                    break;
                case 1:
                    std::memset(b.data() + at, 0, std::min<size_t>(b.size() - at, (h >> 44) % 64));
                    break;
                default:
                    b[at] = static_cast<uint8_t>(h >> 48);
                    break;
            }
        }
        if (k % 5 == 0) b.resize(static_cast<size_t>(SeedHash::mix(h) % b.size()) + 1);
        try {
            const DecodedImage d = ImageDecoder::decode(b.data(), b.size(), request(32, 16), "fuzz");
            EXPECT_EQ(d.rgb.size(), static_cast<size_t>(d.width) * d.height * 3);
            ++decoded;
        } catch (const BadImageError&) {
            ++rejected;
        }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ decode ] 400 damaged files: %d decoded, %d rejected, %.3f s\n", decoded, rejected, s);
    EXPECT_GT(rejected, 0);
    EXPECT_LT(s, 10.0);
}
