// TrainStep's update against the reference's step written out plainly here, on the CPU: D on real
// and backward, G, D on fake.detach() and backward, D steps; G through the updated D with D's
// weight gradients computed too, G steps (reference_dcgan.ReferenceStep, the loop every DCGAN
// tutorial has). TrainStep runs the same update with fewer passes (one backward for D's two
// losses, one autocast region for both D passes, no weight gradients for D in G's pass): the
// parameters after each step must be the reference's, to float rounding.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "base/model/Presets.h"
#include "base/run/TrainConfig.h"
#include "ml/dataset/BatchLoader.h"
#include "ml/dataset/SyntheticSource.h"
#include "ml/train/TrainStep.h"

using namespace streetgan;

namespace {

void copyParameters(torch::nn::Module& to, torch::nn::Module& from) {
    torch::NoGradGuard noGrad;
    auto a = to.named_parameters(), b = from.named_parameters();
    for (const auto& p : b) a[p.key()].copy_(p.value());
    auto c = to.named_buffers(), d = from.named_buffers();
    for (const auto& p : d) c[p.key()].copy_(p.value());
}

double largestDifference(torch::nn::Module& a, torch::nn::Module& b) {
    double worst = 0;
    auto pa = a.named_parameters();
    for (const auto& p : b.named_parameters()) worst = std::max(worst, (pa[p.key()] - p.value()).abs().max().item<double>());
    auto ba = a.named_buffers();
    for (const auto& p : b.named_buffers())
        if (p.value().is_floating_point()) worst = std::max(worst, (ba[p.key()] - p.value()).abs().max().item<double>());
    return worst;
}

struct Oracle {
    Generator g;
    Discriminator d;
    torch::optim::AdamW optG, optD;
    Oracle(const TrainConfig& cfg, TrainStep& from) : g(cfg.model), d(cfg.model), optG(g->parameters(), options(cfg)), optD(d->parameters(), options(cfg)) {
        copyParameters(*g, *from.generator());
        copyParameters(*d, *from.discriminator());
    }
    static torch::optim::AdamWOptions options(const TrainConfig& cfg) {
        return torch::optim::AdamWOptions(cfg.lr).betas({cfg.betas[0], cfg.betas[1]}).weight_decay(cfg.weightDecay).eps(cfg.eps);
    }
    void step(const torch::Tensor& real, const torch::Tensor& noise, const TrainConfig& cfg) {
        namespace F = torch::nn::functional;
        const int64_t b = real.size(0);
        const auto realT = torch::full({b}, cfg.realLabel), fakeT = torch::full({b}, cfg.fakeLabel), ones = torch::ones({b});
        d->zero_grad(true);
        F::binary_cross_entropy_with_logits(d->forward(real), realT).backward();
        const auto fake = g->forward(noise);
        F::binary_cross_entropy_with_logits(d->forward(fake.detach()), fakeT).backward();
        optD.step();
        g->zero_grad(true);
        F::binary_cross_entropy_with_logits(d->forward(fake), ones).backward();
        optG.step();
    }
};

}  // namespace

TEST(TrainStepOrder, UpdatesAsTheReferenceStepDoes) {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.batch = 8;
    cfg.ema = 0;
    cfg.channelsLast = false;
    torch::manual_seed(3);
    TrainStep ours(cfg, torch::kCPU);
    Oracle ref(cfg, ours);
    ASSERT_EQ(largestDifference(*ref.g, *ours.generator()), 0.0);

    LoaderOptions lo;
    lo.batch = cfg.batch;
    lo.imgSize = static_cast<int>(cfg.model.imgSize);
    lo.nz = cfg.model.nz;
    lo.seed = 4;
    BatchLoader loader(std::make_shared<SyntheticSource>(2, 64), lo);
    for (int64_t i = 0; i < 4; ++i) {
        const Batch batch = loader.make(i);
        ours.step(batch);
        ref.step(batch.real, batch.noise, cfg);
        // Adam divides by sqrt(v): a rounding difference in a gradient moves a weight by up to lr
        // (2e-4) where that gradient is near zero; the weights themselves are O(0.02..1).
        EXPECT_LT(largestDifference(*ref.d, *ours.discriminator()), 1e-5) << "D after step " << i;
        EXPECT_LT(largestDifference(*ref.g, *ours.generator()), 1e-5) << "G after step " << i;
        for (const auto& p : ours.discriminator()->parameters()) EXPECT_TRUE(p.requires_grad()) << "D's parameters train again after G's pass";
    }
    // The comparison can fail: one step of the reference more moves every weight by about lr.
    ref.step(loader.make(9).real, loader.make(9).noise, cfg);
    EXPECT_GT(largestDifference(*ref.g, *ours.generator()), 1e-5);
}
