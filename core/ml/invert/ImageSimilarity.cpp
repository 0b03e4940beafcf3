#include "ml/invert/ImageSimilarity.h"

#include <cmath>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "base/util/Errors.h"
#include "ml/util/ShapeText.h"

namespace streetgan {
namespace {

void checkShapes(const at::Tensor& a, const at::Tensor& b) {
    if (a.dim() != 4 || !a.sizes().equals(b.sizes()))
        throw DataError("image similarity needs two (N, C, H, W) images of one shape (got " + shapeText(a) + " and " + shapeText(b) + ")");
}

// Floating-point images keep their type: the variances are differences of close numbers
// (E[x^2] - E[x]^2), so float32 gives SSIM to about 1e-3 only; reported figures use float64.
at::Tensor floating(const at::Tensor& t) { return t.is_floating_point() ? t : t.to(at::kFloat); }

// The separable Gaussian window as a depthwise (C, 1, k, k) kernel.
at::Tensor gaussianWindow(int64_t side, int64_t channels, const at::TensorOptions& options) {
    constexpr double kSigma = 1.5;
    at::Tensor x = at::arange(side, at::TensorOptions().dtype(at::kDouble)).sub_(static_cast<double>(side - 1) / 2.0);
    at::Tensor g = x.pow(2).div_(-2.0 * kSigma * kSigma).exp_();
    g.div_(g.sum());
    return g.unsqueeze(1).mm(g.unsqueeze(0)).to(options).expand({channels, 1, side, side}).contiguous();
}

}  // namespace

at::Tensor ImageSimilarity::psnr(const at::Tensor& a, const at::Tensor& b) {
    checkShapes(a, b);
    const at::Tensor mse = (floating(a) - floating(b)).pow(2).flatten(1).mean(1);
    return mse.reciprocal().log10().mul(10.0);
}

at::Tensor ImageSimilarity::ssim(const at::Tensor& a, const at::Tensor& b) {
    checkShapes(a, b);
    constexpr double kC1 = 0.01 * 0.01, kC2 = 0.03 * 0.03;  // (K * data range)^2, data range 1
    const int64_t channels = a.size(1);
    int64_t side = std::min<int64_t>({11, a.size(2), a.size(3)});
    if (side % 2 == 0) --side;
    const at::Tensor x = floating(a), y = floating(b);
    const at::Tensor w = gaussianWindow(side, channels, x.options());
    const std::vector<int64_t> one{1, 1}, none{0, 0};
    auto blur = [&](const at::Tensor& t) { return at::conv2d(t, w, c10::nullopt, one, none, one, channels); };
    const at::Tensor mx = blur(x), my = blur(y);
    // The window's weighted (population) variances and covariance: E[x^2] - E[x]^2.
    const at::Tensor vx = blur(x * x) - mx * mx, vy = blur(y * y) - my * my, cxy = blur(x * y) - mx * my;
    const at::Tensor map = ((2 * mx * my + kC1) * (2 * cxy + kC2)) / ((mx * mx + my * my + kC1) * (vx + vy + kC2));
    return map.flatten(1).mean(1);
}

}  // namespace streetgan
