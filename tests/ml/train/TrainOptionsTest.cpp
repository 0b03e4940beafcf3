// The training options beyond the reference DCGAN: G_ema (GeneratorAverage), DiffAugment, R1
// (R1Penalty), their TrainConfig keys, and what TrainStep does with them.
#include <gtest/gtest.h>

#include <torch/torch.h>
#include <cmath>
#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"
#include "ml/model/WeightInit.h"
#include "ml/train/DiffAugment.h"
#include "ml/train/GeneratorAverage.h"
#include "ml/train/R1Penalty.h"
#include "ml/train/TrainStep.h"

using namespace streetgan;

namespace {

Generator tinyG() {
    Generator g(Presets::get("tiny-32"));
    WeightInit::dcgan(*g);
    return g;
}

// (1, 1, H, W) image whose pixel (i, j) is 1 + i x W + j: every pixel tells where it came from.
torch::Tensor numbered(int64_t h, int64_t w) { return (torch::arange(h * w, torch::kFloat32) + 1).view({1, 1, h, w}); }

}  // namespace

TEST(GeneratorAverage, UpdateIsTheHandComputedLerpAndCopiesBuffers) {
    Generator g = tinyG();
    GeneratorAverage avg(g, 0.9);
    auto before = avg.generator()->parameters();
    std::vector<torch::Tensor> p0;
    for (auto& p : before) p0.push_back(p.detach().clone());
    {
        torch::NoGradGuard noGrad;
        for (auto& p : g->parameters()) p.fill_(1.0);
        for (auto& b : g->buffers()) b.fill_(3);
    }
    // t = 1000: the ramp 0.5^(1/50) = 0.9862 is above the decay, so beta = 0.9.
    avg.update(g, 1000);
    const auto after = avg.generator()->parameters();
    for (size_t i = 0; i < after.size(); ++i) {
        EXPECT_TRUE(torch::allclose(after[i], p0[i] * 0.9 + 0.1, 1e-6, 1e-7)) << i;
        EXPECT_FALSE(after[i].requires_grad());
    }
    for (const auto& b : avg.generator()->buffers()) EXPECT_TRUE(torch::all(b == 3).item<bool>());
}

TEST(GeneratorAverage, RampUpFollowsStyleGan2) {
    EXPECT_EQ(GeneratorAverage::beta(0.999, 0), 0.0);  // the first update copies G
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(0.999, 20), 0.5);
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(0.999, 1), std::pow(0.5, 20.0));
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(0.999, 600), std::pow(0.5, 1.0 / 30.0));
    // StyleGAN2's cap in images, ema_nimg = batch x ln 0.5 / ln(decay), is reached where
    // 0.5^(1 / (0.05 t)) = decay: t = 20 ln 0.5 / ln 0.999 = 13856.01.
    EXPECT_LT(GeneratorAverage::beta(0.999, 13856), 0.999);
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(0.999, 13857), 0.999);
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(0.999, 1000000), 0.999);
    for (int64_t t = 1; t < 20000; t += 97) EXPECT_LE(GeneratorAverage::beta(0.999, t), GeneratorAverage::beta(0.999, t + 97));

    Generator g = tinyG();
    GeneratorAverage avg(g, 0.999);
    {
        torch::NoGradGuard noGrad;
        for (auto& p : g->parameters()) p.add_(1.0);
    }
    avg.update(g, 0);
    const auto a = avg.generator()->parameters(), b = g->parameters();
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << i;
}

TEST(GeneratorAverage, DrawsNoRandomNumbers) {
    Generator g = tinyG();
    torch::manual_seed(5);
    const auto expected = torch::randn({8});
    torch::manual_seed(5);
    GeneratorAverage avg(g, 0.999);
    EXPECT_TRUE(torch::equal(torch::randn({8}), expected));
}

TEST(DiffAugment, TranslationShiftsWithZeroPadding) {
    const auto x = numbered(6, 8);
    const auto y = DiffAugment::translate(x, torch::tensor({1}), torch::tensor({-2}));
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 8; ++j) {
            const int64_t si = i + 1, sj = j - 2;
            const float want = (si >= 0 && si < 6 && sj >= 0 && sj < 8) ? x[0][0][si][sj].item<float>() : 0.0f;
            EXPECT_EQ(y[0][0][i][j].item<float>(), want) << i << "," << j;
        }
}

TEST(DiffAugment, CutoutZeroesASquareOfHalfTheSize) {
    const auto x = torch::ones({2, 3, 8, 8});
    // Centre (4, 4): rows and columns 2..5 (side 4); centre (0, 7): rows 0..1, columns 5..7 (clipped).
    const auto y = DiffAugment::cutout(x, torch::tensor({4, 0}), torch::tensor({4, 7}));
    EXPECT_EQ(y.sizes(), x.sizes());
    EXPECT_EQ((y[0] == 0).sum().item<int64_t>(), 3 * 16);
    EXPECT_TRUE(torch::all(y[0].slice(1, 2, 6).slice(2, 2, 6) == 0).item<bool>());
    EXPECT_EQ((y[1] == 0).sum().item<int64_t>(), 3 * 2 * 3);
    EXPECT_TRUE(torch::all(y[1].slice(1, 0, 2).slice(2, 5, 8) == 0).item<bool>());
}

TEST(DiffAugment, ColorIsThePapersBrightnessSaturationContrast) {
    auto x = torch::rand({2, 3, 4, 4}) * 2 - 1;
    const auto one = torch::ones({2});
    // brightness alone adds; saturation 0 makes each pixel its channel mean; contrast 1 is identity.
    EXPECT_TRUE(torch::allclose(DiffAugment::color(x, torch::tensor({0.25, -0.5}), one, one), x + torch::tensor({0.25, -0.5}).view({2, 1, 1, 1})));
    const auto grey = DiffAugment::color(x, torch::zeros({2}), torch::zeros({2}), one);
    EXPECT_TRUE(torch::allclose(grey, x.mean({1}, true).expand_as(x)));
    const auto flat = DiffAugment::color(x, torch::zeros({2}), one, torch::zeros({2}));
    EXPECT_TRUE(torch::allclose(flat, x.mean({1, 2, 3}, true).expand_as(x)));
}

TEST(DiffAugment, RandomOpsKeepShapesStayInTheirRangesAndAreReproducible) {
    torch::manual_seed(1);
    const auto x = torch::rand({16, 3, 32, 32}) + 1;  // no zero pixels: zeros come from the ops
    torch::manual_seed(9);
    const auto defaultDraw = torch::randn({4});
    torch::manual_seed(9);
    DiffAugment aug("translation", 3);
    aug.beginStep(7, 0, torch::kCPU);
    const auto y = aug.apply(x);
    EXPECT_TRUE(torch::equal(torch::randn({4}), defaultDraw)) << "DiffAugment drew from torch's default generator";
    ASSERT_EQ(y.sizes(), x.sizes());
    // Each image is its original shifted by at most round(32 / 8) = 4 pixels per axis.
    int shifted = 0;
    for (int64_t b = 0; b < 16; ++b) {
        bool found = false;
        for (int64_t dy = -4; dy <= 4; ++dy)
            for (int64_t dx = -4; dx <= 4; ++dx) {
                if (found || !torch::equal(DiffAugment::translate(x.slice(0, b, b + 1), torch::tensor({dy}), torch::tensor({dx})), y.slice(0, b, b + 1)))
                    continue;
                found = true;
                if (dy != 0 || dx != 0) ++shifted;
            }
        EXPECT_TRUE(found) << b;
    }
    EXPECT_GT(shifted, 8);
    // Cutout: exactly one 16 x 16 square (clipped at the border) per image.
    DiffAugment cut("cutout", 3);
    cut.beginStep(7, 0, torch::kCPU);
    const auto z = cut.apply(x);
    for (int64_t b = 0; b < 16; ++b) {
        const auto zero = (z[b][0] == 0);
        const int64_t rows = zero.any(1).sum().item<int64_t>(), cols = zero.any(0).sum().item<int64_t>();
        EXPECT_EQ(zero.sum().item<int64_t>(), rows * cols) << b;  // a rectangle
        EXPECT_GE(rows, 8);
        EXPECT_LE(rows, 16);
        EXPECT_GE(cols, 8);
        EXPECT_LE(cols, 16);
    }
    // The same step draws the same; another step or rank draws otherwise.
    DiffAugment all("color,translation,cutout", 3);
    all.beginStep(7, 0, torch::kCPU);
    const auto a = all.apply(x);
    all.beginStep(7, 0, torch::kCPU);
    EXPECT_TRUE(torch::equal(all.apply(x), a));
    all.beginStep(8, 0, torch::kCPU);
    EXPECT_FALSE(torch::equal(all.apply(x), a));
    all.beginStep(7, 1, torch::kCPU);
    EXPECT_FALSE(torch::equal(all.apply(x), a));
    EXPECT_EQ(a.sizes(), x.sizes());
}

TEST(DiffAugment, GradientsReachTheGenerator) {
    Generator g = tinyG();
    DiffAugment aug("color,translation,cutout", 1);
    aug.beginStep(0, 0, torch::kCPU);
    const auto fake = g->forward(torch::randn({4, g->config().nz, 1, 1}));
    aug.apply(fake).square().sum().backward();
    for (const auto& p : g->named_parameters()) {
        ASSERT_TRUE(p.value().grad().defined()) << p.key();
        EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0.0) << p.key();
    }
}

TEST(R1Penalty, EqualsGammaHalfTimesEveryTimesMeanSquaredGradientNorm) {
    torch::manual_seed(2);
    Discriminator d(Presets::get("tiny-32"));
    WeightInit::dcgan(*d);
    d->to(torch::kFloat64);
    const auto x = torch::randn({3, 3, 32, 32}, torch::kFloat64);
    const double gamma = 2.5;
    const int64_t every = 4;
    const auto r1 = R1Penalty::compute(d, x, gamma, every);

    // grad_x of sum(D(x)) by central finite differences on a few coordinates, then the formula.
    auto xr = x.clone().requires_grad_(true);
    const auto grad = torch::autograd::grad({d->forward(xr).sum()}, {xr})[0];
    const double h = 1e-5;
    for (const auto& pos : std::vector<std::vector<int64_t>>{{0, 0, 5, 7}, {1, 2, 31, 0}, {2, 1, 16, 16}}) {
        torch::NoGradGuard noGrad;
        auto e = torch::zeros_like(x);
        e[pos[0]][pos[1]][pos[2]][pos[3]].fill_(h);
        const double fd = (d->forward(x + e).sum().item<double>() - d->forward(x - e).sum().item<double>()) / (2 * h);
        EXPECT_NEAR(grad[pos[0]][pos[1]][pos[2]][pos[3]].item<double>(), fd, 1e-6 + 1e-4 * std::abs(fd));
    }
    const double want = gamma / 2.0 * static_cast<double>(every) * grad.square().sum({1, 2, 3}).mean().item<double>();
    EXPECT_NEAR(r1.item<double>(), want, 1e-9 * want);
    // It trains D: its backward reaches D's weights.
    d->zero_grad();
    r1.backward();
    for (const auto& p : d->named_parameters())
        if (p.key().find("weight") != std::string::npos) {
            EXPECT_TRUE(p.value().grad().defined()) << p.key();
        }
}

TEST(TrainOptions, RoundTripThroughJsonAndRefuseBadValues) {
    TrainConfig c;
    EXPECT_EQ(c.ema, 0.999);  // on by default
    EXPECT_EQ(c.diffAugment, "");
    EXPECT_EQ(c.r1Gamma, 0.0);
    EXPECT_EQ(c.r1Every, 16);
    c.ema = 0.995;
    c.diffAugment = "color,cutout";
    c.r1Gamma = 0.2;
    c.r1Every = 8;
    const auto j = c.toJson();
    EXPECT_EQ(j.at("ema"), 0.995);
    EXPECT_EQ(j.at("diffaugment"), "color,cutout");
    EXPECT_EQ(j.at("r1_gamma"), 0.2);
    EXPECT_EQ(j.at("r1_every"), 8);
    TrainConfig back;
    back.merge(nlohmann::json::parse(j.dump()));
    EXPECT_EQ(back.ema, 0.995);
    EXPECT_EQ(back.diffAugment, "color,cutout");
    EXPECT_EQ(back.r1Gamma, 0.2);
    EXPECT_EQ(back.r1Every, 8);
    EXPECT_EQ(back.toJson(), j);
    back.validate();
    auto bad = [](const nlohmann::json& patch, const std::string& says) {
        TrainConfig t;
        try {
            t.merge(patch);
            t.validate();
            ADD_FAILURE() << patch.dump() << " was accepted";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    };
    bad({{"ema", 1.0}}, "ema 1 is out of range");
    bad({{"ema", -0.1}}, "ema -0.1 is out of range");
    bad({{"diffaugment", "color,flip"}}, "unknown part 'flip'");
    bad({{"r1_gamma", -1}}, "r1_gamma -1 is out of range");
    bad({{"r1_every", 0}}, "r1_every 0 is out of range");
    bad({{"diffaugment", 3}}, "config key 'diffaugment' has the wrong type");
    EXPECT_EQ(TrainConfig::diffAugmentOps("color,,translation"), (std::vector<std::string>{"color", "translation"}));
}

TEST(TrainOptions, TrainStepWithGEmaDrawsTheSameRandomNumbersAndStartsItAtG) {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.channelsLast = false;
    torch::manual_seed(4);
    cfg.ema = 0;
    TrainStep off(cfg, torch::kCPU);
    EXPECT_EQ(off.averageGenerator(), nullptr);
    const auto afterOff = torch::randn({4});
    torch::manual_seed(4);
    cfg.ema = 0.999;
    TrainStep on(cfg, torch::kCPU);
    ASSERT_NE(on.averageGenerator(), nullptr);
    EXPECT_TRUE(torch::equal(torch::randn({4}), afterOff)) << "G_ema changed torch's random sequence";
    CheckpointData ck;
    on.capture(ck);
    ASSERT_EQ(ck.generatorEma.size(), ck.generator.size());
    for (size_t i = 0; i < ck.generator.size(); ++i) EXPECT_TRUE(torch::equal(ck.generator[i].second, ck.generatorEma[i].second));  // a copy at start
}

TEST(TrainOptions, CudaGraphRoundTripsAndIsRefusedWhereItCannotRun) {
    TrainConfig c;
    EXPECT_FALSE(c.cudaGraph);  // off by default
    c.cudaGraph = true;
    const auto j = c.toJson();
    EXPECT_EQ(j.at("cuda_graph"), true);
    TrainConfig back;
    back.merge(nlohmann::json::parse(j.dump()));
    EXPECT_TRUE(back.cudaGraph);
    back.validate();
    // Steps that differ from step to step cannot be replayed.
    for (const auto& patch : {nlohmann::json{{"cuda_graph", true}, {"diffaugment", "color"}}, nlohmann::json{{"cuda_graph", true}, {"r1_gamma", 0.2}}}) {
        TrainConfig t;
        t.merge(patch);
        try {
            t.validate();
            ADD_FAILURE() << patch.dump() << " was accepted";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find("does not combine with DiffAugment or R1"), std::string::npos) << e.what();
        }
    }
    // On the CPU (and in a build without CUDA) the step refuses it by name instead of training without it.
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.cudaGraph = true;
    try {
        TrainStep step(cfg, torch::kCPU);
        ADD_FAILURE() << "--cuda-graph was accepted on the CPU";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("--cuda-graph needs a CUDA"), std::string::npos) << e.what();
    }
}

// Issue 42 item 3: what a resume changed, compared by value (run.json's 0.0002 and a typed 2e-4
// are one rate), and which settings a resume keeps, refused naming the first (the preset before the
// sizes it implies).
TEST(TrainOptions, ResumeChangesAreComparedByValueAndTheModelsShapeIsKept) {
    TrainConfig before;
    before.lr = 2e-4;
    const nlohmann::json was = before.toJson();
    TrainConfig same = before;
    same.lr = 0.0002;
    EXPECT_TRUE(TrainConfig::changes(was, same.toJson()).empty());
    nlohmann::json asInts = was;
    asInts["ngf"] = static_cast<double>(before.model.ngf);  // 64.0 is 64
    EXPECT_TRUE(TrainConfig::changes(asInts, same.toJson()).empty());
    TrainConfig after = before;
    after.lr = 1e-3;
    after.steps = 99;
    after.betas[0] = 0.0;
    const nlohmann::json c = TrainConfig::changes(was, after.toJson());
    EXPECT_EQ(c.size(), 3u) << c.dump();
    EXPECT_EQ(c["lr"]["from"], 2e-4);
    EXPECT_EQ(c["betas"]["to"], nlohmann::json({0.0, before.betas[1]}));
    EXPECT_NO_THROW(after.checkResume(was, "r/run.json"));  // the optimiser's settings may change
    EXPECT_EQ(TrainConfig::resumeRefusal("lr"), "");
    EXPECT_NE(TrainConfig::resumeRefusal("ngf"), "");
    TrainConfig bigger = before;
    bigger.model = Presets::get("naive-64");
    bigger.seed = before.seed + 1;
    try {
        bigger.checkResume(was, "r/run.json");
        ADD_FAILURE() << "a new preset was accepted on resume";
    } catch (const ConfigError& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.find("a resumed run cannot change preset from"), 0u) << m;
        EXPECT_NE(m.find("(r/run.json)"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
}

// The learning rate has one range wherever it is set (--lr, run.json, control set-lr, the dialogs):
// TrainConfig::kLrMin..kLrMax (it was 0..10, (0, 10], 1e-6..1 and 1e-8..10 in five places).
TEST(TrainOptions, TheLearningRateHasOneRange) {
    TrainConfig c;
    c.lr = TrainConfig::kLrMax;
    EXPECT_NO_THROW(c.validate());
    c.lr = TrainConfig::kLrMin;
    EXPECT_NO_THROW(c.validate());
    for (double bad : {0.0, TrainConfig::kLrMax * 1.5}) {
        c.lr = bad;
        try {
            c.validate();
            ADD_FAILURE() << "lr " << bad << " was accepted";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find("lr"), std::string::npos) << e.what();
        }
    }
}

// Issue 42 item 3, for each optimiser setting a resume may change (the table's rows lr, lr_d,
// betas, weight_decay, eps): the optimisers restored from a checkpoint train with the resumed
// run's settings, not with those the checkpoint's state was made with; and --lr-d gives D its own
// rate, which a later set-lr of G's does not move.
TEST(TrainOptions, AResumeTrainsWithItsOwnOptimiserSettings) {
    TrainConfig a;
    a.model = Presets::get("tiny-32");
    a.batch = 4;
    a.steps = 2;
    torch::manual_seed(5);
    TrainStep first(a, torch::kCPU);
    CheckpointData ck;
    first.capture(ck);
    ASSERT_TRUE(ck.generatorOptim && ck.discriminatorOptim);
    EXPECT_DOUBLE_EQ(ck.discriminatorOptim->lr, a.lr);  // no --lr-d: D at G's rate

    TrainConfig b = a;
    b.lr = 1e-3;
    b.lrD = 4e-3;
    b.betas = {0.0, 0.99};
    b.weightDecay = 0.01;
    b.eps = 1e-6;
    TrainStep resumed(b, torch::kCPU);
    resumed.restore(ck, "ck.pt");
    resumed.setLearningRate(b.lr);  // what TrainingRun does after a restore
    CheckpointData now;
    resumed.capture(now);
    for (const auto* o : {&*now.generatorOptim, &*now.discriminatorOptim}) {
        EXPECT_DOUBLE_EQ(o->beta1, 0.0);
        EXPECT_DOUBLE_EQ(o->beta2, 0.99);
        EXPECT_DOUBLE_EQ(o->weightDecay, 0.01);
        EXPECT_DOUBLE_EQ(o->eps, 1e-6);
    }
    EXPECT_DOUBLE_EQ(now.generatorOptim->lr, 1e-3);
    EXPECT_DOUBLE_EQ(now.discriminatorOptim->lr, 4e-3);
    resumed.setLearningRate(5e-4);  // a live set-lr is G's rate; D keeps --lr-d
    resumed.capture(now);
    EXPECT_DOUBLE_EQ(now.generatorOptim->lr, 5e-4);
    EXPECT_DOUBLE_EQ(now.discriminatorOptim->lr, 4e-3);
    EXPECT_DOUBLE_EQ(resumed.learningRate(), 5e-4);
}
