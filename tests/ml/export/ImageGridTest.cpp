// ImageGrid against tests/python/make_grid_ref.py (torchvision 0.14's make_grid and save_image's
// uint8 conversion, run on the same float32 inputs with /usr/bin/python3's torch).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/util/Errors.h"
#include "ml/export/ImageGrid.h"
#include "support/TempDir.h"

using namespace streetgan;
namespace fs = std::filesystem;

namespace {

using streetgan::test::TempDir;

void writeRaw(const torch::Tensor& t, const fs::path& p) {
    auto c = t.to(torch::kFloat).contiguous();
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(c.data_ptr<float>()), static_cast<std::streamsize>(c.numel() * 4));
}

std::string readAll(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

torch::Tensor readRaw(const fs::path& p, const std::vector<int64_t>& shape) {
    std::string bytes = readAll(p);
    auto t = torch::empty(shape, torch::kFloat);
    EXPECT_EQ(bytes.size(), static_cast<size_t>(t.numel() * 4)) << p;
    if (bytes.size() == static_cast<size_t>(t.numel() * 4)) std::memcpy(t.data_ptr<float>(), bytes.data(), bytes.size());
    return t;
}

std::vector<int64_t> readShape(const fs::path& p) {
    std::ifstream f(p);
    std::vector<int64_t> shape;
    int64_t d;
    while (f >> d) shape.push_back(d);
    return shape;
}

struct Case {
    std::vector<int64_t> shape;  // N, C, H, W
    int nrow, padding;
    bool normalize;
    float padValue;
    float scale, offset;  // inputs are randn * scale + offset
};

std::string describe(const Case& c) {
    std::ostringstream s;
    s << "shape (" << c.shape[0] << "," << c.shape[1] << "," << c.shape[2] << "," << c.shape[3] << ") nrow " << c.nrow << " padding " << c.padding
      << " normalize " << c.normalize << " pad " << c.padValue;
    return s.str();
}

bool hasReferencePython() {
    std::string cmd = std::string(STREETGAN_PYTHON) + " -c 'import torch, numpy' >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

}  // namespace

TEST(ImageGrid, MatchesTorchvisionMakeGridReference) {
    if (!hasReferencePython()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch/numpy";
    const std::vector<Case> cases = {
        {{1, 3, 8, 8}, 8, 2, true, 0.f, 2.f, 0.5f},  {{5, 3, 8, 6}, 8, 2, true, 0.f, 1.f, 0.f},      {{5, 3, 8, 6}, 2, 4, true, 0.f, 3.f, -1.f},
        {{8, 3, 16, 16}, 8, 2, true, 0.f, 1.f, 0.f}, {{8, 3, 16, 16}, 3, 0, true, 0.5f, 0.3f, 0.7f}, {{64, 3, 16, 16}, 8, 2, true, 0.f, 1.f, 0.f},
        {{64, 3, 8, 8}, 10, 4, true, 1.f, 5.f, 2.f}, {{64, 3, 8, 8}, 1, 1, true, 0.f, 1.f, 0.f},     {{64, 3, 8, 8}, 100, 3, true, 0.f, 1.f, 0.f},
        {{5, 1, 7, 9}, 2, 2, true, 0.f, 1.f, 0.f},   {{1, 1, 7, 9}, 8, 2, true, 0.f, 1.f, 0.f},      {{8, 3, 8, 8}, 4, 2, false, 0.25f, 0.4f, 0.5f},
        {{8, 3, 8, 8}, 4, 2, true, 0.f, 0.f, 0.3f},  // constant batch: max - min below 1e-5
    };
    TempDir dir;
    torch::manual_seed(1234);
    std::vector<torch::Tensor> inputs;
    std::ofstream manifest(dir.path() / "manifest.txt");
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        auto t = torch::randn(c.shape) * c.scale + c.offset;
        inputs.push_back(t);
        auto in = dir.path() / ("in" + std::to_string(i) + ".bin");
        writeRaw(t, in);
        manifest << in.string() << ' ' << (dir.path() / ("out" + std::to_string(i) + ".bin")).string();
        for (auto d : c.shape) manifest << ' ' << d;
        manifest << ' ' << c.nrow << ' ' << c.padding << ' ' << (c.normalize ? 1 : 0) << ' ' << c.padValue << '\n';
    }
    manifest.close();
    std::string cmd = std::string(STREETGAN_PYTHON) + " '" + STREETGAN_TEST_PYTHON_DIR + "/make_grid_ref.py' '" + (dir.path() / "manifest.txt").string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        SCOPED_TRACE(describe(c));
        auto out = dir.path() / ("out" + std::to_string(i) + ".bin");
        auto shape = readShape(out.string() + ".shape");
        auto expected = readRaw(out, shape);
        auto before = inputs[i].clone();
        auto grid = ImageGrid::makeGrid(inputs[i], c.nrow, c.padding, c.normalize, c.padValue);
        EXPECT_TRUE(torch::equal(inputs[i], before)) << "makeGrid modified its input";
        ASSERT_EQ(grid.sizes().vec(), shape);
        EXPECT_TRUE(torch::equal(grid, expected)) << "max abs diff " << (grid - expected).abs().max().item<float>();

        // The shape rule, stated independently of the reference.
        const int64_t n = c.shape[0], h = c.shape[2], w = c.shape[3];
        if (n > 1) {
            const int64_t xmaps = std::min<int64_t>(c.nrow, n), ymaps = (n + xmaps - 1) / xmaps;
            EXPECT_EQ(grid.size(0), 3);
            EXPECT_EQ(grid.size(1), ymaps * (h + c.padding) + c.padding);
            EXPECT_EQ(grid.size(2), xmaps * (w + c.padding) + c.padding);
        }

        // save_image's uint8 conversion, through a PNG round trip, RGB order kept.
        std::string png = ImageGrid::encodePng(grid);
        cv::Mat decoded = cv::imdecode(cv::Mat(1, static_cast<int>(png.size()), CV_8UC1, png.data()), cv::IMREAD_UNCHANGED);
        ASSERT_FALSE(decoded.empty());
        ASSERT_EQ(decoded.type(), CV_8UC3);
        cv::Mat rgb;
        cv::cvtColor(decoded, rgb, cv::COLOR_BGR2RGB);
        std::string want = readAll(out.string() + ".u8");
        ASSERT_EQ(want.size(), rgb.total() * 3);
        EXPECT_EQ(std::memcmp(rgb.data, want.data(), want.size()), 0) << "PNG bytes differ from save_image's";
    }
}

TEST(ImageGrid, SingleImageIsReturnedItself) {
    auto img = torch::rand({1, 3, 5, 4});
    auto g = ImageGrid::makeGrid(img, 8, 2, false);
    EXPECT_EQ(g.sizes().vec(), (std::vector<int64_t>{3, 5, 4}));
    EXPECT_TRUE(torch::equal(g, img[0]));
    auto grey = ImageGrid::makeGrid(torch::rand({1, 1, 5, 4}), 8, 2, true);
    EXPECT_EQ(grey.sizes().vec(), (std::vector<int64_t>{3, 5, 4}));
}

TEST(ImageGrid, NormalizeIsOneMinMaxOverTheBatch) {
    auto a = torch::full({1, 3, 2, 2}, -2.f);
    auto b = torch::full({1, 3, 2, 2}, 6.f);
    auto g = ImageGrid::makeGrid(torch::cat({a, b}), 8, 0, true);
    EXPECT_FLOAT_EQ(g.index({torch::indexing::Slice(), torch::indexing::Slice(), torch::indexing::Slice(0, 2)}).max().item<float>(), 0.f);
    EXPECT_FLOAT_EQ(g.index({torch::indexing::Slice(), torch::indexing::Slice(), torch::indexing::Slice(2, 4)}).min().item<float>(), 1.f);
}

TEST(ImageGrid, RejectsBadArguments) {
    auto img = torch::rand({4, 3, 4, 4});
    EXPECT_THROW(ImageGrid::makeGrid(img, 0), ConfigError);
    EXPECT_THROW(ImageGrid::makeGrid(img, 8, -1), ConfigError);
    EXPECT_THROW(ImageGrid::makeGrid(torch::rand({0, 3, 4, 4})), DataError);
    EXPECT_THROW(ImageGrid::makeGrid(torch::rand({2, 2, 3, 4, 4})), DataError);
    EXPECT_THROW(ImageGrid::makeGrid(torch::zeros({2, 3, 4, 4}, torch::kByte)), DataError);
    EXPECT_THROW(ImageGrid::encodePng(torch::rand({2, 4, 4})), DataError);
    EXPECT_THROW(ImageGrid::encodePng(torch::rand({2, 3, 4, 4})), DataError);
}

TEST(ImageGrid, PngRoundTripExactValuesAndRgbOrder) {
    // Pure red, green, blue pixels plus exact save_image rounding: v*255+0.5 truncated.
    auto img = torch::zeros({3, 2, 3});
    img[0][0][0] = 1.f;   // red
    img[1][0][1] = 1.f;   // green
    img[2][0][2] = 1.f;   // blue
    img[0][1][0] = 0.5f;  // 128.0 -> 128
    img[1][1][1] = 0.2f;  // 51.5 -> 51 (float 0.2*255 = 51.0000008, +0.5 truncates to 51)
    img[2][1][2] = 2.f;   // saturates at 255
    img[0][1][2] = -1.f;  // saturates at 0
    std::string png = ImageGrid::encodePng(img);
    ASSERT_GE(png.size(), 8u);
    EXPECT_EQ(png.substr(1, 3), "PNG");
    cv::Mat m = cv::imdecode(cv::Mat(1, static_cast<int>(png.size()), CV_8UC1, png.data()), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(m.type(), CV_8UC3);
    ASSERT_EQ(m.rows, 2);
    ASSERT_EQ(m.cols, 3);
    auto px = [&](int r, int c) { return m.at<cv::Vec3b>(r, c); };  // OpenCV: B, G, R
    EXPECT_EQ(px(0, 0), cv::Vec3b(0, 0, 255));
    EXPECT_EQ(px(0, 1), cv::Vec3b(0, 255, 0));
    EXPECT_EQ(px(0, 2), cv::Vec3b(255, 0, 0));
    EXPECT_EQ(px(1, 0), cv::Vec3b(0, 0, 128));
    EXPECT_EQ(px(1, 1), cv::Vec3b(0, 51, 0));
    EXPECT_EQ(px(1, 2), cv::Vec3b(255, 0, 0));

    // Every uint8 value survives: v/255 -> round trip gives v back.
    auto ramp = torch::arange(256, torch::kFloat).div(255).reshape({1, 16, 16});
    std::string greyPng = ImageGrid::encodePng(ramp);
    cv::Mat g = cv::imdecode(cv::Mat(1, static_cast<int>(greyPng.size()), CV_8UC1, greyPng.data()), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(g.type(), CV_8UC1);
    for (int v = 0; v < 256; ++v) EXPECT_EQ(g.at<uint8_t>(v / 16, v % 16), v);

    // RGBA keeps its alpha.
    auto rgba = torch::ones({4, 1, 1});
    rgba[3][0][0] = 0.f;
    std::string rgbaPng = ImageGrid::encodePng(rgba);
    cv::Mat a = cv::imdecode(cv::Mat(1, static_cast<int>(rgbaPng.size()), CV_8UC1, rgbaPng.data()), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(a.type(), CV_8UC4);
    EXPECT_EQ(a.at<cv::Vec4b>(0, 0), cv::Vec4b(255, 255, 255, 0));
}

TEST(ImageGrid, WritePngIsAtomicAndReadable) {
    TempDir dir;
    auto grid = ImageGrid::makeGrid(torch::randn({6, 3, 8, 8}), 3);
    auto path = (dir.path() / "step_10.png").string();
    ImageGrid::writePng(grid, path);
    EXPECT_EQ(readAll(path), ImageGrid::encodePng(grid));
    cv::Mat m = cv::imread(path, cv::IMREAD_UNCHANGED);
    EXPECT_EQ(m.rows, grid.size(1));
    EXPECT_EQ(m.cols, grid.size(2));
    // Overwrite in place; nothing else is left in the folder.
    ImageGrid::writePng(torch::zeros({3, 4, 4}), path);
    EXPECT_EQ(cv::imread(path).rows, 4);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(ImageGrid, WritePngFailuresThrowIoErrorAndLeaveNoTempFile) {
    TempDir dir;
    auto img = torch::rand({3, 32, 32});
    auto countEntries = [&] { return std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()); };

    // Missing folder.
    auto missing = (dir.path() / "no-such-folder" / "grid.png").string();
    try {
        ImageGrid::writePng(img, missing);
        FAIL() << "no exception";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    }

    // The temp file is created but the rename fails: the target is a non-empty folder.
    auto target = dir.path() / "occupied.png";
    fs::create_directory(target);
    std::ofstream(target / "keep").put('x');
    EXPECT_THROW(ImageGrid::writePng(img, target.string()), IoError);
    EXPECT_EQ(countEntries(), 1);

    // A full disk, simulated with a file-size limit: write() fails with EFBIG.
    struct rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit tiny = old;
    tiny.rlim_cur = 64;
    bool threwIo = false;
    auto full = (dir.path() / "full.png").string();
    if (::setrlimit(RLIMIT_FSIZE, &tiny) == 0) {
        try {
            ImageGrid::writePng(torch::rand({3, 64, 64}), full);  // random pixels: PNG far above 64 bytes
        } catch (const IoError&) {
            threwIo = true;
        }
        ::setrlimit(RLIMIT_FSIZE, &old);
        EXPECT_TRUE(threwIo);
        EXPECT_FALSE(fs::exists(full));
        EXPECT_EQ(countEntries(), 1);
    }
    std::signal(SIGXFSZ, oldHandler);

    // A read-only folder (only meaningful when not running as root).
    if (::geteuid() != 0) {
        auto ro = dir.path() / "ro";
        fs::create_directory(ro);
        fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
        EXPECT_THROW(ImageGrid::writePng(img, (ro / "grid.png").string()), IoError);
        fs::permissions(ro, fs::perms::owner_all);
        EXPECT_EQ(std::distance(fs::directory_iterator(ro), fs::directory_iterator()), 0);
    }
}
