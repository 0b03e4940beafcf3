// The GPU-feeding parts of a training step, run on the CPU: the device-side batch form
// (DeviceBatch: uint8 pixels normalised and noise drawn on the device) and ATen's fused AdamW
// (FusedAdamW), each against the path it replaces.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/SyntheticSource.h"
#include "ml/train/DeviceBatch.h"
#include "ml/train/FusedAdamW.h"
#include "ml/util/TorchCompat.h"

using namespace streetgan;

namespace {

LoaderOptions options(bool deviceSide) {
    LoaderOptions lo;
    lo.batch = 6;
    lo.imgSize = 32;
    lo.nz = 16;
    lo.seed = 5;
    lo.deviceSide = deviceSide;
    return lo;
}

}  // namespace

TEST(DeviceBatch, DeviceSideFormNormalisesToTheHostFormsPixels) {
    auto source = std::make_shared<SyntheticSource>(3, 64);
    ASSERT_EQ(source->noiseStd(), 0.0) << "the comparison needs a source without augmentation noise";
    const Batch host = BatchLoader(source, options(false)).make(7);
    const Batch dev = BatchLoader(source, options(true)).make(7);
    ASSERT_FALSE(dev.real.defined());
    ASSERT_TRUE(dev.realU8.defined());
    EXPECT_EQ(dev.realU8.sizes(), (std::vector<int64_t>{6, 32, 32, 3}));
    EXPECT_EQ(dev.size(), host.size());
    for (bool channelsLast : {true, false}) {
        const DeviceBatch a = DeviceBatch::from(host, torch::kCPU, channelsLast, 0.0);
        const DeviceBatch b = DeviceBatch::from(dev, torch::kCPU, channelsLast, 0.0);
        EXPECT_TRUE(torch::allclose(a.real, b.real, 0, 1e-6)) << "channels-last " << channelsLast;
        EXPECT_EQ(b.real.is_contiguous(torch::MemoryFormat::ChannelsLast), channelsLast);
        EXPECT_EQ(b.noise.sizes(), (std::vector<int64_t>{6, 16, 1, 1}));
        EXPECT_TRUE(torch::equal(a.noise, b.noise)) << "z must not depend on the batch form (a CPU and a GPU run of one seed share it)";
        EXPECT_FALSE(b.noiseReal.defined());
    }
}

TEST(DeviceBatch, DrawsFromTheBatchSeedOnly) {
    auto source = std::make_shared<SyntheticSource>(3, 64);
    Batch dev = BatchLoader(source, options(true)).make(2);
    const DeviceBatch a = DeviceBatch::from(dev, torch::kCPU, true, 0.5);
    torch::randn({100});  // torch's global stream moves; the batch's draws must not
    const DeviceBatch b = DeviceBatch::from(dev, torch::kCPU, true, 0.5);
    EXPECT_TRUE(torch::equal(a.noise, b.noise));
    EXPECT_TRUE(torch::equal(a.noiseReal, b.noiseReal));
    EXPECT_FALSE(torch::equal(a.noiseReal, a.noiseFake));
    EXPECT_NEAR(a.noiseReal.std().item<double>(), 0.5, 0.05);
    const double zStd = a.noise.std().item<double>();
    EXPECT_GT(zStd, 0.7);
    EXPECT_LT(zStd, 1.3);
    Batch other = BatchLoader(source, options(true)).make(3);
    EXPECT_NE(other.deviceSeed, dev.deviceSeed);
    EXPECT_FALSE(torch::equal(DeviceBatch::from(other, torch::kCPU, true, 0.0).noise, a.noise));
}

// ATen's fused kernel exists in LibTorch 2.x only (1.13 has none), on the CPU too since 2.4: this
// runs in the `cuda` preset's suites, against the LibTorch that the GPU trainer uses.
TEST(FusedAdamW, MatchesTorchOptimAdamWAndSkipsOnFoundInf) {
    if (!TorchCompat::kTorch2) GTEST_SKIP() << "LibTorch " << TORCH_VERSION << " has no fused AdamW kernel; the cuda preset runs this";
    torch::manual_seed(3);
    auto make = [] {
        std::vector<torch::Tensor> ps{torch::randn({4, 3, 2, 2}).contiguous(torch::MemoryFormat::ChannelsLast).requires_grad_(),
                                      torch::randn({7}).requires_grad_()};
        return ps;
    };
    auto ref = make();
    std::vector<torch::Tensor> fused;
    for (auto& p : ref) fused.push_back(p.detach().clone().requires_grad_());
    auto opts = torch::optim::AdamWOptions(2e-3).betas({0.5, 0.999}).weight_decay(0.05).eps(1e-8);
    torch::optim::AdamW a(ref, opts), b(fused, opts);
    FusedAdamW f;
    for (int step = 0; step < 3; ++step) {
        for (size_t i = 0; i < ref.size(); ++i) {
            auto g = torch::randn(ref[i].sizes());
            ref[i].mutable_grad() = g.clone();
            fused[i].mutable_grad() = g.clone();
        }
        a.step();
        f.step(b);
    }
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_TRUE(torch::allclose(ref[i], fused[i], 1e-5, 1e-6)) << "parameter " << i;
    // A found inf leaves parameters, moments and the step count as they were.
    const auto before = fused[0].detach().clone();
    for (auto& p : fused) p.mutable_grad() = torch::full(p.sizes(), 1e9);
    f.step(b, torch::ones({1}));
    EXPECT_TRUE(torch::equal(before, fused[0]));
    f.syncSteps(b);
    auto& st = static_cast<torch::optim::AdamWParamState&>(*b.state().at(TorchCompat::optimizerStateKey(fused[0])));
    EXPECT_EQ(st.step(), 3);
}
