#include <gtest/gtest.h>

#include <torch/torch.h>

#include "base/model/Presets.h"
#include "base/util/Errors.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"
#include "ml/model/WeightInit.h"

using namespace streetgan;

namespace {
struct Expected {
    const char* preset;
    int64_t g, d;
};
// docs/design.md's table (tiny-32 is ours: checked against tests/python/reference_dcgan.py).
const Expected kExpected[] = {
    {"naive-64", 3576704, 2765568},  {"safe-64", 52448768, 2765568}, {"safe-128", 195063296, 44611072},
    {"msls-128", 48772864, 2796928}, {"tiny-32", 296896, 167808},
};
}  // namespace

TEST(Model, ParameterCountsMatchDesignTable) {
    for (const auto& e : kExpected) {
        auto cfg = Presets::get(e.preset);
        Generator g(cfg);
        Discriminator d(cfg);
        EXPECT_EQ(WeightInit::trainableParameters(*g), e.g) << e.preset;
        EXPECT_EQ(WeightInit::trainableParameters(*d), e.d) << e.preset;
    }
}

TEST(Model, OutputShapes) {
    for (const char* name : {"tiny-32", "naive-64", "msls-128"}) {
        auto cfg = Presets::get(name);
        Generator g(cfg);
        Discriminator d(cfg);
        auto z = torch::randn({2, cfg.nz});
        auto img = g->forward(z);
        EXPECT_EQ(img.sizes(), (std::vector<int64_t>{2, 3, cfg.imgSize, cfg.imgSize})) << name;
        EXPECT_LE(img.max().item<float>(), 1.0f);
        EXPECT_GE(img.min().item<float>(), -1.0f);
        EXPECT_EQ(d->forward(img).sizes(), (std::vector<int64_t>{2})) << name;
    }
}

TEST(Model, StateDictKeysMatchReference) {
    Generator g(Presets::get("naive-64"));
    auto params = g->named_parameters();
    auto buffers = g->named_buffers();
    EXPECT_TRUE(params.contains("main.0.weight"));
    EXPECT_TRUE(params.contains("main.1.weight"));
    EXPECT_TRUE(params.contains("main.12.weight"));
    EXPECT_TRUE(buffers.contains("main.1.running_mean"));
    EXPECT_TRUE(buffers.contains("main.1.num_batches_tracked"));
    EXPECT_EQ(params["main.12.weight"].sizes(), (std::vector<int64_t>{64, 3, 4, 4}));
}

TEST(Model, InitStatistics) {
    torch::manual_seed(1);
    Generator g(Presets::get("naive-64"));
    WeightInit::dcgan(*g);
    auto p = g->named_parameters();
    EXPECT_NEAR(p["main.3.weight"].std().item<double>(), 0.02, 0.001);
    EXPECT_NEAR(p["main.1.weight"].mean().item<double>(), 1.0, 0.005);
    EXPECT_EQ(p["main.1.bias"].abs().sum().item<double>(), 0.0);
}

TEST(Model, UnknownPresetNamesTheKnownOnes) {
    try {
        Presets::get("naive-65");
        FAIL() << "no exception";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("naive-64"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("naive-65"), std::string::npos);
    }
}
