#include "ml/train/DiffAugment.h"

#include <cmath>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "base/run/TrainConfig.h"
#include "base/util/SeedHash.h"

namespace streetgan {
namespace {

constexpr uint64_t kStream = 0x6469666661756700ULL;  // "diffaug": this generator's stream of the run seed

// round(n x ratio) as the paper's int(n * ratio + 0.5)
int64_t part(int64_t n, double ratio) { return std::lround(static_cast<double>(n) * ratio); }  // the same for n, ratio >= 0

}  // namespace

DiffAugment::DiffAugment(const std::string& policy, uint64_t seed) : ops_(TrainConfig::diffAugmentOps(policy)), seed_(seed) {}

void DiffAugment::beginStep(int64_t step, int64_t rank, torch::Device device) {
    const uint64_t s = SeedHash::of(seed_ ^ kStream, static_cast<uint64_t>(rank), static_cast<uint64_t>(step));
    // Off the CPU a clone of the device's default generator (as DeviceBatch), reseeded: naming the
    // backend's generator type would need its (CUDA) headers. The default itself is not touched.
    if (device.is_cpu()) {
        gen_ = at::make_generator<at::CPUGeneratorImpl>(s);
    } else {
        gen_ = at::globalContext().defaultGenerator(device).clone();
        gen_.set_current_seed(s);
    }
}

torch::Tensor DiffAugment::apply(const torch::Tensor& x) {
    const int64_t B = x.size(0), H = x.size(2), W = x.size(3);
    const auto f = torch::TensorOptions().dtype(torch::kFloat32).device(x.device());  // fp32 draws under any autocast dtype
    const auto i = torch::TensorOptions().dtype(torch::kLong).device(x.device());
    torch::Tensor y = x;
    for (const auto& op : ops_) {
        if (op == "color") {
            auto b = at::rand({B}, gen_, f) - 0.5;
            auto s = at::rand({B}, gen_, f) * 2;
            auto c = at::rand({B}, gen_, f) + 0.5;
            y = color(y, b, s, c);
        } else if (op == "translation") {
            const int64_t ry = part(H, 0.125), rx = part(W, 0.125);
            auto dy = at::randint(-ry, ry + 1, {B}, gen_, i);
            auto dx = at::randint(-rx, rx + 1, {B}, gen_, i);
            y = translate(y, dy, dx);
        } else if (op == "cutout") {
            const int64_t sy = part(H, 0.5), sx = part(W, 0.5);
            auto cy = at::randint(0, H + (1 - sy % 2), {B}, gen_, i);
            auto cx = at::randint(0, W + (1 - sx % 2), {B}, gen_, i);
            y = cutout(y, cy, cx);
        }
    }
    return y;
}

torch::Tensor DiffAugment::color(const torch::Tensor& x, const torch::Tensor& brightness, const torch::Tensor& saturation, const torch::Tensor& contrast) {
    const int64_t B = x.size(0);
    auto y = x + brightness.view({B, 1, 1, 1});
    auto m = y.mean({1}, /*keepdim=*/true);
    y = (y - m) * saturation.view({B, 1, 1, 1}) + m;
    m = y.mean({1, 2, 3}, /*keepdim=*/true);
    return (y - m) * contrast.view({B, 1, 1, 1}) + m;
}

torch::Tensor DiffAugment::translate(const torch::Tensor& x, const torch::Tensor& dy, const torch::Tensor& dx) {
    namespace F = torch::nn::functional;
    const int64_t B = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    const auto i = torch::TensorOptions().dtype(torch::kLong).device(x.device());
    // The paper's index arithmetic: one pixel of zero padding, indices clamped onto it.
    auto rows = (torch::arange(H, i).view({1, H}) + dy.to(i).view({B, 1}) + 1).clamp(0, H + 1);
    auto cols = (torch::arange(W, i).view({1, W}) + dx.to(i).view({B, 1}) + 1).clamp(0, W + 1);
    auto padded = F::pad(x, F::PadFuncOptions({1, 1, 1, 1}));
    auto y = padded.gather(2, rows.view({B, 1, H, 1}).expand({B, C, H, W + 2}));
    return y.gather(3, cols.view({B, 1, 1, W}).expand({B, C, H, W}));
}

torch::Tensor DiffAugment::cutout(const torch::Tensor& x, const torch::Tensor& cy, const torch::Tensor& cx) {
    const int64_t B = x.size(0), H = x.size(2), W = x.size(3);
    const int64_t sy = part(H, 0.5), sx = part(W, 0.5);
    const auto i = torch::TensorOptions().dtype(torch::kLong).device(x.device());
    // Rows cy - sy/2 .. cy - sy/2 + sy - 1 (the paper's clamped indices cover the same pixels:
    // the square always overlaps the image), columns likewise.
    auto top = cy.to(i).view({B, 1}) - sy / 2;
    auto left = cx.to(i).view({B, 1}) - sx / 2;
    auto r = torch::arange(H, i).view({1, H});
    auto c = torch::arange(W, i).view({1, W});
    auto inRows = (r >= top).logical_and(r < top + sy);
    auto inCols = (c >= left).logical_and(c < left + sx);
    auto cut = inRows.view({B, 1, H, 1}).logical_and(inCols.view({B, 1, 1, W}));
    return x * cut.logical_not().to(x.scalar_type());
}

}  // namespace streetgan
