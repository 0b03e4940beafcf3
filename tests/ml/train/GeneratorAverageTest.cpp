// G_ema's two decay rules (issue 43 item 5): the per-step `ema` and the half-life in images
// `ema_kimg`, StyleGAN's. TrainConfig::emaDecay picks the rule and GeneratorAverage::beta ramps it;
// here against StyleGAN2's own formula, which setting wins, what an old run.json resumes with, the
// settings line and the options' messages. (The update itself: TrainOptionsTest.)
#include <gtest/gtest.h>

#include <torch/torch.h>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "base/model/Presets.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"
#include "ml/model/Generator.h"
#include "ml/model/WeightInit.h"
#include "ml/train/GeneratorAverage.h"

using namespace streetgan;

namespace {

// StyleGAN2-ADA's training_loop.py, line for line: the images done before this step ramp the
// half-life, and beta is 0.5 to the images of one step over it.
double styleGanBeta(double emaKimg, int64_t batch, int64_t worldSize, int64_t stepsBefore) {
    const double batchSize = static_cast<double>(batch * worldSize);
    const double curNimg = static_cast<double>(stepsBefore) * batchSize;
    double emaNimg = emaKimg * 1000;
    emaNimg = std::min(emaNimg, curNimg * 0.05);  // ema_rampup 0.05
    return std::pow(0.5, batchSize / std::max(emaNimg, 1e-8));
}

TrainConfig kimg(double k) {
    TrainConfig c;
    c.ema = 0.999;
    c.emaKimg = k;
    return c;
}

std::string configError(const nlohmann::json& patch) {
    TrainConfig t;
    try {
        t.merge(patch);
        t.validate();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST(GeneratorAverage, HalfLifeInImagesIsStyleGansBetaAtEveryStepBatchAndWorldSize) {
    for (const double k : {10.0, 2.5, 20.0})
        for (const int64_t batch : {8, 64, 128})
            for (const int64_t world : {1, 4})
                for (const int64_t t : {0, 1, 7, 20, 100, 600, 3000, 100000}) {
                    const double ours = GeneratorAverage::beta(kimg(k).emaDecay(batch * world), t);
                    EXPECT_NEAR(ours, styleGanBeta(k, batch, world, t), 1e-12) << k << " kimg, batch " << batch << " x " << world << ", t " << t;
                }
    // The figures a reader can check by hand: 10 kimg at batch 64 is 0.5^(64 / 10000) per step, at
    // 4 ranks 0.5^(256 / 10000); the images decay of a step of 10,000 images is 0.5, its half-life.
    EXPECT_DOUBLE_EQ(kimg(10).emaDecay(64), std::pow(0.5, 0.0064));
    EXPECT_NEAR(kimg(10).emaDecay(64), 0.995574, 1e-6);
    EXPECT_DOUBLE_EQ(kimg(10).emaDecay(256), std::pow(0.5, 0.0256));
    EXPECT_DOUBLE_EQ(kimg(10).emaDecay(10000), 0.5);
}

TEST(GeneratorAverage, TheRampDoesNotDependOnTheRuleAndEndsAtTheDecay) {
    // 10 kimg at batch 64 caps at 0.995574: the ramp 0.5^(1 / (0.05 t)) reaches it after
    // t = 10000 / (0.05 x 64) = 3125 steps; before that both rules give the same ramp.
    const double decay = kimg(10).emaDecay(64);
    EXPECT_EQ(GeneratorAverage::beta(decay, 0), 0.0);  // the first update copies G
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(decay, 20), 0.5);
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(decay, 20), GeneratorAverage::beta(0.999, 20));
    EXPECT_LT(GeneratorAverage::beta(decay, 3124), decay);
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(decay, 3125), decay);
    EXPECT_DOUBLE_EQ(GeneratorAverage::beta(decay, 50000), decay);
    // The per-step rule ignores the images: 0.999 at any batch and world size.
    TrainConfig perStep;
    perStep.ema = 0.999;
    perStep.emaKimg = 0;
    EXPECT_EQ(perStep.emaDecay(8), 0.999);
    EXPECT_EQ(perStep.emaDecay(512), 0.999);
}

TEST(GeneratorAverage, SetDecayTakesEffectAtTheNextUpdate) {
    Generator g(Presets::get("tiny-32"));
    WeightInit::dcgan(*g);
    GeneratorAverage avg(g, 0.999);
    const torch::Tensor start = avg.generator()->parameters().front().clone();
    {
        torch::NoGradGuard noGrad;
        for (auto& p : g->parameters()) p.add_(1.0);
    }
    avg.setDecay(0.5);  // as a distributed run's setDistributed does
    EXPECT_EQ(avg.decay(), 0.5);
    avg.update(g, 100000);  // long after the ramp: beta is the decay
    EXPECT_TRUE(torch::allclose(avg.generator()->parameters().front(), start + 0.5, 1e-6, 1e-6));
}

TEST(GeneratorAverage, WhichSettingWins) {
    // ema 0 turns G_ema off under either rule.
    TrainConfig off = kimg(10);
    off.ema = 0;
    EXPECT_EQ(off.emaDecay(64), 0.0);
    // Both in one config (every run.json): ema_kimg > 0 rules, ema only says on.
    TrainConfig both;
    both.merge({{"ema", 0.99}, {"ema_kimg", 20}});
    EXPECT_EQ(both.emaKimg, 20);
    EXPECT_DOUBLE_EQ(both.emaDecay(64), std::pow(0.5, 64.0 / 20000));
    // ema alone (--ema D, a --config file, an old run.json) is the per-step rule whatever ema_kimg was.
    TrainConfig alone = kimg(10);
    alone.merge({{"ema", 0.99}});
    EXPECT_EQ(alone.emaKimg, 0);
    EXPECT_EQ(alone.emaDecay(64), 0.99);
    // ema_kimg alone keeps ema (on) and uses the half-life.
    TrainConfig onlyKimg;
    onlyKimg.ema = 0.999;
    onlyKimg.emaKimg = 0;
    onlyKimg.merge({{"ema_kimg", 5}});
    EXPECT_EQ(onlyKimg.ema, 0.999);
    EXPECT_DOUBLE_EQ(onlyKimg.emaDecay(64), std::pow(0.5, 64.0 / 5000));
    // Neither: the config's own (a --config file of other settings keeps the defaults).
    TrainConfig neither = kimg(10);
    neither.merge({{"lr", 1e-3}});
    EXPECT_EQ(neither.emaKimg, 10);
}

TEST(GeneratorAverage, AnOldRunJsonResumesWithItsPerStepDecay) {
    // A run.json written before ema_kimg existed: every key of today's config but that one.
    TrainConfig old;
    old.ema = 0.999;
    nlohmann::json oldConfig = old.toJson();
    oldConfig.erase("ema_kimg");
    for (const double defaultKimg : {0.0, 10.0}) {  // whatever a new run's default is
        TrainConfig resumed;
        resumed.emaKimg = defaultKimg;
        resumed.merge(oldConfig);  // as TrainCommand does with --resume: the run's settings, then the flags
        resumed.merge(nlohmann::json::object());
        resumed.validate();
        EXPECT_EQ(resumed.emaKimg, 0) << defaultKimg;
        EXPECT_EQ(resumed.emaDecay(resumed.batch), 0.999) << defaultKimg;
        EXPECT_NO_THROW(resumed.checkResume(oldConfig, "old/run.json"));
        EXPECT_EQ(TrainConfig::changes(oldConfig, resumed.toJson()), nlohmann::json::object());  // nothing recorded as changed
    }
    // The same with G_ema off stays off.
    oldConfig["ema"] = 0.0;
    TrainConfig resumedOff = kimg(10);
    resumedOff.merge(oldConfig);
    EXPECT_EQ(resumedOff.emaDecay(64), 0.0);
    // A new run's run.json resumes with its half-life; a flag on the resume may switch the rule.
    const nlohmann::json newConfig = kimg(20).toJson();
    TrainConfig resumedNew;
    resumedNew.merge(newConfig);
    EXPECT_EQ(resumedNew.emaKimg, 20);
    EXPECT_EQ(TrainConfig::resumeRefusal("ema_kimg"), "");
    resumedNew.merge({{"ema", 0.995}});
    EXPECT_EQ(resumedNew.emaDecay(64), 0.995);
    EXPECT_NO_THROW(resumedNew.checkResume(newConfig, "new/run.json"));
}

TEST(GeneratorAverage, SettingsLineSaysWhichRuleAndDecay) {
    TrainConfig c = kimg(10);
    c.model = Presets::get("tiny-32");
    c.batch = 64;
    EXPECT_NE(c.summary().find(", G_ema 10 kimg (0.995574 per step),"), std::string::npos) << c.summary();
    EXPECT_NE(c.summary(4).find(", G_ema 10 kimg (0.982412 per step),"), std::string::npos) << c.summary(4);  // 0.5^(256 / 10000)
    c.emaKimg = 0;
    EXPECT_NE(c.summary().find(", G_ema 0.999 per step,"), std::string::npos) << c.summary();
    c.ema = 0;
    c.emaKimg = 10;
    EXPECT_NE(c.summary().find(", G_ema off,"), std::string::npos) << c.summary();
}

TEST(GeneratorAverage, OptionMessages) {
    EXPECT_NE(configError({{"ema_kimg", -1}}).find("ema_kimg -1 is out of range: use 0..1e+06"), std::string::npos);
    EXPECT_NE(configError({{"ema_kimg", 2e6}}).find("ema_kimg 2e+06 is out of range: use 0..1e+06"), std::string::npos);
    EXPECT_NE(configError({{"ema_kimg", "ten"}}).find("config key 'ema_kimg' has the wrong type"), std::string::npos);
    EXPECT_NE(configError({{"ema", 1.0}, {"ema_kimg", 10}}).find("ema 1 is out of range"), std::string::npos);
    EXPECT_EQ(configError({{"ema_kimg", 0}}), "accepted");
    EXPECT_EQ(configError({{"ema_kimg", 500}}), "accepted");
    // The value round-trips through run.json.
    const TrainConfig c = kimg(12.5);
    TrainConfig back;
    back.merge(nlohmann::json::parse(c.toJson().dump()));
    EXPECT_EQ(back.emaKimg, 12.5);
    EXPECT_EQ(back.toJson(), c.toJson());
}
