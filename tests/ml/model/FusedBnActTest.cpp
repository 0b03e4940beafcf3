// FusedBnAct (issue 46 item 2): the CPU fallback everywhere (FusedBnActFallback.*), and on a CUDA
// device in a build with the kernels (FusedBnActTest.*) the fused forward, running statistics and
// the three gradients against BatchNorm2d + ReLU/LeakyReLU computed in float32 from the same
// inputs, in both layouts, float32 and bfloat16, and inside a CUDA graph capture.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <sstream>
#include <stdexcept>
#include <string>

#include "base/model/Presets.h"
#include "ml/model/Discriminator.h"
#include "ml/model/FusedBnAct.h"
#include "ml/model/Generator.h"

#ifdef STREETGAN_HAVE_CUDA_KERNELS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

using namespace streetgan;

TEST(FusedBnActFallback, NotAvailableOnCpu) { EXPECT_FALSE(FusedBnAct::available(torch::kCPU)); }

TEST(FusedBnActFallback, ForwardOnCpuThrowsNamingItself) {
    torch::nn::BatchNorm2d bn(4);
    try {
        FusedBnAct::forward(torch::randn({2, 4, 3, 3}), *bn, 0.0);
        FAIL() << "no exception";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("FusedBnAct::forward"), std::string::npos) << e.what();
    }
}

// Switched on where it cannot run (the CPU), the models are the modules: bit for bit.
TEST(FusedBnActFallback, ModelsOnCpuAreUnchanged) {
    torch::manual_seed(3);
    const auto cfg = Presets::get("tiny-32");
    Generator g(cfg);
    Discriminator d(cfg);
    g->train();
    d->train();
    const torch::Tensor z = torch::randn({4, cfg.nz});
    const torch::Tensor plainG = g->forward(z);
    const torch::Tensor plainD = d->forward(plainG.detach());
    g->setFusedBnAct(true);
    d->setFusedBnAct(true);
    const torch::Tensor fusedG = g->forward(z);
    EXPECT_TRUE(torch::equal(plainG, fusedG));
    EXPECT_TRUE(torch::equal(plainD, d->forward(fusedG.detach())));
}

#ifdef STREETGAN_HAVE_CUDA_KERNELS

namespace {

// Largest |a - b| over the largest |b| (at least 1): the error relative to the tensor's scale.
double relError(const torch::Tensor& a, const torch::Tensor& b) {
    const torch::Tensor bf = b.to(torch::kFloat);
    const double scale = std::max(1.0, bf.abs().max().item<double>());
    return (a.to(torch::kFloat) - bf).abs().max().item<double>() / scale;
}
// As relError, but ignoring up to `outliers` elements: those whose pre-activation lies so close to
// 0 that float rounding puts it on the other side in one of the two computations.
double relErrorElementwise(const torch::Tensor& a, const torch::Tensor& b, int64_t outliers) {
    const torch::Tensor bf = b.to(torch::kFloat);
    const double scale = std::max(1.0, bf.abs().max().item<double>());
    torch::Tensor err = (a.to(torch::kFloat) - bf).abs().flatten();
    const int64_t k = std::min<int64_t>(outliers + 1, err.numel());
    return std::get<0>(err.topk(k)).min().item<double>() / scale;
}

struct Case {
    int64_t n, c, h, w;
    bool channelsLast;
    torch::ScalarType dtype;
    double slope;
    std::string name() const {
        std::ostringstream s;
        s << n << "x" << c << "x" << h << "x" << w << (channelsLast ? " NHWC " : " NCHW ") << c10::toString(dtype) << " slope " << slope;
        return s.str();
    }
};

// Tolerances, relative to the largest reference value: float32 1e-4 (outputs, running statistics)
// and 1e-3 for dx; bfloat16 outputs and dx are rounded to 8 bits of mantissa (relative 2^-8 =
// 4e-3), so 1e-2. grad weight and grad bias are float32 sums over up to N*H*W = 65536 terms in
// another order, where one element whose pre-activation rounds to the other side of 0 moves a
// sum by about one term: 5e-3.
struct Tolerance {
    double out, dx, sums, running;
};
Tolerance toleranceFor(torch::ScalarType t) { return t == torch::kFloat ? Tolerance{1e-4, 1e-3, 5e-3, 1e-4} : Tolerance{1e-2, 1e-2, 5e-3, 1e-4}; }

torch::Tensor act(const torch::Tensor& v, double slope) { return slope == 0.0 ? torch::relu(v) : torch::leaky_relu(v, slope); }

struct BnCase {
    torch::nn::BatchNorm2d fused{nullptr}, ref{nullptr};
    torch::Tensor x, dy;  // in the case's dtype and layout
};

BnCase makeBnCase(const Case& k) {
    const auto dev = torch::Device(torch::kCUDA, 0);
    BnCase s;
    s.fused = torch::nn::BatchNorm2d(k.c);
    s.ref = torch::nn::BatchNorm2d(k.c);
    s.fused->to(dev);
    s.ref->to(dev);
    {
        torch::NoGradGuard ng;
        s.fused->weight.copy_(torch::rand({k.c}, dev) + 0.5);
        s.fused->bias.copy_(torch::randn({k.c}, dev) * 0.5);
        s.fused->running_mean.copy_(torch::randn({k.c}, dev));
        s.fused->running_var.copy_(torch::rand({k.c}, dev) + 0.5);
        s.ref->weight.copy_(s.fused->weight);
        s.ref->bias.copy_(s.fused->bias);
        s.ref->running_mean.copy_(s.fused->running_mean);
        s.ref->running_var.copy_(s.fused->running_var);
    }
    const auto fmt = k.channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
    s.x = (torch::randn({k.n, k.c, k.h, k.w}, dev) * 2 + 0.3).to(k.dtype).contiguous(fmt);
    s.dy = torch::randn({k.n, k.c, k.h, k.w}, dev).to(k.dtype).contiguous(fmt);
    return s;
}

struct Result {
    torch::Tensor y, dx, dw, db;
};

// The reference: BatchNorm2d + activation in float32 on the same (rounded) inputs.
Result reference(BnCase& s, double slope) {
    torch::Tensor x = s.x.to(torch::kFloat).detach().requires_grad_(true);
    s.ref->weight.mutable_grad() = torch::Tensor();
    s.ref->bias.mutable_grad() = torch::Tensor();
    torch::Tensor y = act(s.ref->forward(x), slope);
    y.backward(s.dy.to(torch::kFloat));
    return {y.detach(), x.grad(), s.ref->weight.grad(), s.ref->bias.grad()};
}

void expectClose(const Result& got, const Result& want, BnCase& s, const Case& k) {
    const Tolerance t = toleranceFor(k.dtype);
    const int64_t outliers = std::max<int64_t>(2, s.x.numel() / 10000);
    EXPECT_EQ(got.y.scalar_type(), k.dtype) << k.name();
    EXPECT_EQ(got.y.is_contiguous(torch::MemoryFormat::ChannelsLast), s.x.is_contiguous(torch::MemoryFormat::ChannelsLast)) << k.name();
    EXPECT_LE(relErrorElementwise(got.y, want.y, 0), t.out) << k.name() << ": output";
    EXPECT_LE(relErrorElementwise(got.dx, want.dx, outliers), t.dx) << k.name() << ": grad x";
    EXPECT_LE(relError(got.dw, want.dw), t.sums) << k.name() << ": grad weight";
    EXPECT_LE(relError(got.db, want.db), t.sums) << k.name() << ": grad bias";
    EXPECT_LE(relError(s.fused->running_mean, s.ref->running_mean), t.running) << k.name() << ": running_mean";
    EXPECT_LE(relError(s.fused->running_var, s.ref->running_var), t.running) << k.name() << ": running_var";
    EXPECT_EQ(s.fused->num_batches_tracked.item<int64_t>(), s.ref->num_batches_tracked.item<int64_t>()) << k.name();
}

Result runFused(BnCase& s, double slope) {
    torch::Tensor x = s.x.detach().requires_grad_(true);
    s.fused->weight.mutable_grad() = torch::Tensor();
    s.fused->bias.mutable_grad() = torch::Tensor();
    torch::Tensor y = FusedBnAct::forward(x, *s.fused, slope);
    y.backward(s.dy);
    return {y.detach(), x.grad(), s.fused->weight.grad(), s.fused->bias.grad()};
}

class FusedBnActTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    }
};

}  // namespace

TEST_F(FusedBnActTest, MatchesBatchNormAndActivation) {
    torch::manual_seed(11);
    const int64_t shapes[][4] = {{64, 512, 4, 4}, {16, 64, 32, 32}, {8, 128, 8, 8}, {5, 3, 7, 9}, {4, 40, 1, 1}, {3, 6, 5, 5}, {2, 1000, 3, 3}};
    for (const auto& sh : shapes)
        for (bool cl : {true, false})
            for (auto dt : {torch::kFloat, torch::kBFloat16})
                for (double slope : {0.0, 0.2}) {
                    const Case k{sh[0], sh[1], sh[2], sh[3], cl, dt, slope};
                    BnCase s = makeBnCase(k);
                    const Result want = reference(s, slope);
                    const Result got = runFused(s, slope);
                    expectClose(got, want, s, k);
                }
}

TEST_F(FusedBnActTest, Float16) {
    torch::manual_seed(12);
    const Case k{32, 64, 16, 16, true, torch::kHalf, 0.2};
    BnCase s = makeBnCase(k);
    const Result want = reference(s, k.slope);
    expectClose(runFused(s, k.slope), want, s, k);
}

// Two batches in a row: the running statistics follow BatchNorm2d's momentum update twice.
TEST_F(FusedBnActTest, RunningStatisticsAccumulate) {
    torch::manual_seed(13);
    const Case k{16, 64, 8, 8, true, torch::kFloat, 0.0};
    BnCase s = makeBnCase(k);
    for (int i = 0; i < 2; ++i) {
        s.x = (torch::randn_like(s.x.to(torch::kFloat)) * (i + 1) - i).contiguous(torch::MemoryFormat::ChannelsLast);
        const Result want = reference(s, k.slope);
        expectClose(runFused(s, k.slope), want, s, k);
    }
}

// A backward with create_graph (the R1 penalty's) is refused with the one message, not wrong.
TEST_F(FusedBnActTest, DoubleBackwardIsRefused) {
    torch::manual_seed(16);
    const Case k{4, 8, 4, 4, true, torch::kFloat, 0.2};
    BnCase s = makeBnCase(k);
    const torch::Tensor x = s.x.detach().requires_grad_(true);
    const torch::Tensor y = FusedBnAct::forward(x, *s.fused, k.slope);
    try {
        torch::autograd::grad({y.sum()}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true);
        FAIL() << "no exception";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("no double backward"), std::string::npos) << e.what();
    }
}

// Forward and backward captured into a CUDA graph (as train --cuda-graph does) and replayed.
TEST_F(FusedBnActTest, InsideCudaGraphCapture) {
    torch::manual_seed(14);
    const Case k{64, 512, 4, 4, true, torch::kBFloat16, 0.2};
    BnCase s = makeBnCase(k);
    const torch::Tensor x = s.x.detach().requires_grad_(true);
    torch::Tensor y, dx, dw, db;
    auto step = [&] {
        y = FusedBnAct::forward(x, *s.fused, k.slope);
        const auto g = torch::autograd::grad({y}, {x, s.fused->weight, s.fused->bias}, {s.dy});
        dx = g[0];
        dw = g[1];
        db = g[2];
    };
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
    {
        const c10::cuda::CUDAStreamGuard guard(side);
        step();  // warm-up before capture, as CUDA graphs need (lazy initialisation, allocator blocks)
        at::cuda::CUDAGraph graph;
        graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
        step();
        graph.capture_end();
        // The reference starts from the running statistics as they stand before the replay.
        {
            torch::NoGradGuard ng;
            s.ref->running_mean.copy_(s.fused->running_mean);
            s.ref->running_var.copy_(s.fused->running_var);
            s.ref->num_batches_tracked.copy_(s.fused->num_batches_tracked);
        }
        graph.replay();
        side.synchronize();
    }
    const Result want = reference(s, k.slope);
    expectClose(Result{y, dx, dw, db}, want, s, k);
}

// The models' switch: the tiny-32 generator and discriminator with and without fusing, on CUDA in
// channels-last, give the same outputs and parameter gradients (float32, training mode). TF32 and
// cuDNN's nondeterministic algorithms off for the comparison (either alone moves the gradients
// by up to a few percent between two runs of the same unfused model on an H200).
TEST_F(FusedBnActTest, ModelsMatchUnfused) {
    torch::manual_seed(15);
    auto& ctx = at::globalContext();
    const bool tf32Cudnn = ctx.allowTF32CuDNN(), tf32Cublas = ctx.allowTF32CuBLAS(), det = ctx.deterministicCuDNN();
    ctx.setAllowTF32CuDNN(false);
    ctx.setAllowTF32CuBLAS(false);
    ctx.setDeterministicCuDNN(true);
    const auto cfg = Presets::get("tiny-32");
    const auto dev = torch::Device(torch::kCUDA, 0);
    Generator g(cfg);
    Discriminator d(cfg);
    g->to(dev, torch::kFloat);
    d->to(dev, torch::kFloat);
    {  // channels-last weights, as the trainer makes them (TrainStep), so activations are NHWC
        torch::NoGradGuard ng;
        for (auto& p : g->parameters())
            if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
        for (auto& p : d->parameters())
            if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
    }
    g->train();
    d->train();
    const torch::Tensor z = torch::randn({16, cfg.nz}, dev);
    auto run = [&](bool fused) {
        g->setFusedBnAct(fused);
        d->setFusedBnAct(fused);
        g->zero_grad();
        d->zero_grad();
        const torch::Tensor img = g->forward(z);
        const torch::Tensor logits = d->forward(img);
        logits.sum().backward();
        std::vector<torch::Tensor> out{img.detach(), logits.detach()};
        for (const auto& p : g->parameters()) out.push_back(p.grad().clone());
        for (const auto& p : d->parameters()) out.push_back(p.grad().clone());
        return out;
    };
    const auto plain = run(false);
    const auto plainAgain = run(false);
    const auto fused = run(true);
    ctx.setAllowTF32CuDNN(tf32Cudnn);
    ctx.setAllowTF32CuBLAS(tf32Cublas);
    ctx.setDeterministicCuDNN(det);
    ASSERT_EQ(plain.size(), fused.size());
    for (size_t i = 0; i < plain.size(); ++i)
        EXPECT_LE(relError(fused[i], plain[i]), 2e-3) << "tensor " << i << " (unfused twice: " << relError(plainAgain[i], plain[i]) << ")";
}

#endif
