// PixelResize against cv::resize, the filters it reproduces: nearest identical, cubic and area
// within one level, on smooth street-like frames and on noise, for the explorer's and GIF
// export's sizes (enlarging 32/64 -> 96/128/256/200, shrinking 64 -> 48/32/17).
#include <gtest/gtest.h>

#include <torch/torch.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "base/util/Errors.h"
#include "ml/export/PixelResize.h"

using namespace streetgan;

namespace {

at::Tensor frames(int n, int h, int w, int c, bool noise) {
    torch::manual_seed(5);
    if (noise) return torch::randint(0, 256, {n, h, w, c}, torch::kByte);
    const auto y = torch::linspace(0, 1, h).view({1, h, 1, 1}), x = torch::linspace(0, 1, w).view({1, 1, w, 1});
    const auto k = torch::arange(c).view({1, 1, 1, c}).to(torch::kFloat);
    const auto base = (y * 180 + x * 60 + k * 20 + (torch::rand({n, h, w, c}) * 25)).floor();
    return base.clamp(0, 255).to(torch::kByte);
}

at::Tensor openCv(const at::Tensor& in, int outH, int outW, int interp) {
    const int n = static_cast<int>(in.size(0)), h = static_cast<int>(in.size(1)), w = static_cast<int>(in.size(2)), c = static_cast<int>(in.size(3));
    at::Tensor out = at::empty({n, outH, outW, c}, at::kByte);
    for (int i = 0; i < n; ++i) {
        cv::Mat src(h, w, CV_8UC(c), in[i].data_ptr<uint8_t>());
        cv::Mat dst(outH, outW, CV_8UC(c), out[i].data_ptr<uint8_t>());
        cv::resize(src, dst, cv::Size(outW, outH), 0, 0, interp);
    }
    return out;
}

int maxDiff(const at::Tensor& a, const at::Tensor& b) { return (a.to(at::kInt) - b.to(at::kInt)).abs().max().item<int>(); }

}  // namespace

TEST(PixelResize, NearestIsOpenCvsExactly) {
    for (bool noise : {false, true})
        for (auto [in, out] : {std::pair{32, 128}, {64, 96}, {64, 200}, {64, 48}, {64, 17}, {3, 7}}) {
            const at::Tensor f = frames(2, in, in, 3, noise);
            EXPECT_TRUE(PixelResize::resize(f, out, out, PixelResize::Filter::Nearest).equal(openCv(f, out, out, cv::INTER_NEAREST))) << in << " -> " << out;
        }
    // Index maps (one channel) as GIF export scales them, and a non-square size.
    const at::Tensor idx = frames(1, 20, 30, 1, true);
    EXPECT_TRUE(PixelResize::resize(idx, 60, 45, PixelResize::Filter::Nearest).equal(openCv(idx, 60, 45, cv::INTER_NEAREST)));
}

TEST(PixelResize, CubicEnlargingIsWithinOneLevelOfOpenCv) {
    for (bool noise : {false, true})
        for (auto [in, out] : {std::pair{32, 128}, {64, 128}, {64, 96}, {64, 256}, {64, 200}}) {
            const at::Tensor f = frames(2, in, in, 3, noise);
            const at::Tensor ours = PixelResize::resize(f, out, out, PixelResize::Filter::Smooth);
            EXPECT_LE(maxDiff(ours, openCv(f, out, out, cv::INTER_CUBIC)), 1) << in << " -> " << out << (noise ? " noise" : "");
            EXPECT_TRUE(ours.equal(PixelResize::resize(f, out, out, PixelResize::Filter::Cubic)));
        }
}

TEST(PixelResize, AreaShrinkingIsWithinOneLevelOfOpenCv) {
    for (bool noise : {false, true})
        for (int out : {32, 48, 17, 1}) {
            const at::Tensor f = frames(2, 64, 64, 3, noise);
            const at::Tensor ours = PixelResize::resize(f, out, out, PixelResize::Filter::Smooth);
            EXPECT_LE(maxDiff(ours, openCv(f, out, out, cv::INTER_AREA)), 1) << "64 -> " << out << (noise ? " noise" : "");
        }
    // An integer factor is a plain box mean: exact against a hand computation.
    const at::Tensor f = frames(1, 4, 4, 1, true);
    const at::Tensor half = PixelResize::resize(f, 2, 2, PixelResize::Filter::Area);
    const at::Tensor want = (f.to(at::kFloat).view({1, 2, 2, 2, 2, 1}).sum({2, 4}) / 4 + 0.5).floor().to(at::kByte);
    EXPECT_TRUE(half.equal(want.view({1, 2, 2, 1})));
}

TEST(PixelResize, SameSizeCopiesAndBadInputIsRefused) {
    const at::Tensor f = frames(1, 8, 8, 3, true);
    const at::Tensor same = PixelResize::resize(f, 8, 8, PixelResize::Filter::Smooth);
    EXPECT_TRUE(same.equal(f));
    EXPECT_NE(same.data_ptr(), f.data_ptr());
    EXPECT_THROW(PixelResize::resize(f.to(at::kFloat), 16, 16, PixelResize::Filter::Smooth), DataError);
    EXPECT_THROW(PixelResize::resize(f[0], 16, 16, PixelResize::Filter::Smooth), DataError);
    EXPECT_THROW(PixelResize::resize(f, 0, 16, PixelResize::Filter::Smooth), DataError);
}
