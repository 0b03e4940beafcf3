// FeatureMetrics end to end on a tiny generator and the synthetic streets (the test's own
// TorchScript feature network), TrainingMetrics' event, and the TrainConfig metric keys.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "MetricsTestUtil.h"
#include "base/model/Presets.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"
#include "ml/eval/FeatureMetrics.h"
#include "ml/eval/RealFeatureCache.h"
#include "ml/eval/TrainingMetrics.h"

using namespace streetgan;
using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

TrainConfig tinyRun() {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.syntheticImages = 48;
    cfg.seed = 3;
    return cfg;
}

Generator tinyGenerator() {
    torch::manual_seed(17);
    return Generator(Presets::get("tiny-32"));
}

MetricOptions options(const std::string& cacheDir) {
    MetricOptions o;
    o.metrics = {"fid", "kid", "pr", "dc", "vendi"};
    o.features = featureNetDir() + "/feat_kw.pt";
    o.samples = 40;
    o.batch = 16;
    o.kidSubsets = 10;
    o.cacheDir = cacheDir;
    return o;
}

}  // namespace

TEST(FeatureMetrics, ParsesMetricLists) {
    EXPECT_EQ(FeatureMetrics::parseList("fid,kid,pr"), (std::vector<std::string>{"fid", "kid", "pr"}));
    EXPECT_EQ(FeatureMetrics::parseList(" kid , fid,kid"), (std::vector<std::string>{"kid", "fid"}));
    EXPECT_THROW(FeatureMetrics::parseList("fid,is"), ConfigError);
    EXPECT_THROW(FeatureMetrics::parseList(","), ConfigError);
    MetricOptions parzen;
    parzen.metrics = {"parzen"};
    EXPECT_THROW(FeatureMetrics(parzen, torch::kCPU), ConfigError);  // pixel-space, not a feature metric
    MetricOptions few;
    few.samples = 1;
    EXPECT_THROW(FeatureMetrics(few, torch::kCPU), ConfigError);
}

TEST(FeatureMetrics, UnavailableWithoutAFeatureModelNeverFaked) {
    TempDir dir;
    MetricOptions o;
    o.metrics = {"fid", "kid", "pr", "dc"};
    o.cacheDir = dir.path().string();
    FeatureMetrics m(o, torch::kCPU);
    EXPECT_EQ(m.featureModelProblem(), FeatureMetrics::noFeatureModelReason());
    Generator g = tinyGenerator();
    const auto j = m.evaluate(g, FeatureMetrics::realSource("synthetic", tinyRun()));
    ASSERT_TRUE(j.has_value());
    EXPECT_TRUE((*j)["fid"].is_null());
    EXPECT_TRUE((*j)["kid"].is_null());
    EXPECT_TRUE((*j)["kid_std"].is_null());
    EXPECT_TRUE((*j)["precision"].is_null());
    EXPECT_TRUE((*j)["recall"].is_null());
    EXPECT_EQ((*j)["fid_unavailable"], "no feature model: pass --features inception-2015-12-05.pt (clean-fid's TorchScript Inception)");
    EXPECT_EQ((*j)["kid_unavailable"], (*j)["fid_unavailable"]);
    EXPECT_EQ((*j)["pr_unavailable"], (*j)["fid_unavailable"]);
    EXPECT_TRUE((*j)["density"].is_null() && (*j)["coverage"].is_null());
    EXPECT_EQ((*j)["dc_unavailable"], (*j)["fid_unavailable"]);
    EXPECT_TRUE(fs::is_empty(dir.path()));  // nothing computed, nothing cached

    EXPECT_EQ(FeatureMetrics::unavailable({"fid"}, "why").dump(), R"({"fid":null,"fid_unavailable":"why"})");

    o.features = dir.file("missing.pt");
    FeatureMetrics missing(o, torch::kCPU);
    const auto k = missing.evaluate(g, FeatureMetrics::realSource("synthetic", tinyRun()));
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE((*k)["fid"].is_null());
    EXPECT_NE((*k)["fid_unavailable"].get<std::string>().find("missing.pt' does not exist"), std::string::npos) << k->dump();
}

TEST(FeatureMetrics, ComputesCachesAndReusesRealFeatures) {
    if (featureNetDir().empty()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    const RealImageSource real = FeatureMetrics::realSource("synthetic", tinyRun());
    EXPECT_EQ(real.imageSize, 32);
    EXPECT_NE(real.identity.find("seed 3"), std::string::npos) << real.identity;
    Generator g = tinyGenerator();
    g->train();

    std::vector<std::string> warnings, phases;
    MetricCallbacks cb;
    cb.warn = [&](const std::string& w) { warnings.push_back(w); };
    cb.progress = [&](const std::string& phase, double f) {
        if (f == 1.0) phases.push_back(phase);
    };
    FeatureMetrics first(options(dir.path().string()), torch::kCPU);
    const auto a = first.evaluate(g, real, cb);
    ASSERT_TRUE(a.has_value());
    EXPECT_TRUE(g->is_training());  // put back as it was
    EXPECT_EQ((*a)["real_cache"], "miss");
    EXPECT_EQ(phases, (std::vector<std::string>{"real features", "generated features"}));
    EXPECT_TRUE(warnings.empty());
    const double fid = (*a)["fid"].get<double>();
    EXPECT_GT(fid, 0.0);
    EXPECT_TRUE(std::isfinite((*a)["kid"].get<double>()));
    EXPECT_GE((*a)["kid_std"].get<double>(), 0.0);
    EXPECT_EQ((*a)["kid_subsets"], 10);
    EXPECT_EQ((*a)["kid_subset_size"], 40);  // clamped to the sample counts
    for (const char* k : {"precision", "recall"}) {
        EXPECT_GE((*a)[k].get<double>(), 0.0) << k;
        EXPECT_LE((*a)[k].get<double>(), 1.0) << k;
    }
    EXPECT_EQ((*a)["pr_k"], 3);
    EXPECT_GE((*a)["density"].get<double>(), 0.0);
    EXPECT_GE((*a)["coverage"].get<double>(), 0.0);
    EXPECT_LE((*a)["coverage"].get<double>(), 1.0);
    EXPECT_EQ((*a)["dc_k"], 5);
    for (const char* k : {"vendi", "vendi_real"}) {  // the effective number of distinct images of 40
        EXPECT_GE((*a)[k].get<double>(), 1.0) << k;
        EXPECT_LE((*a)[k].get<double>(), 40.0) << k;
    }
    EXPECT_EQ((*a)["samples"], 40);
    EXPECT_EQ((*a)["real_samples"], 40);
    EXPECT_EQ((*a)["feature_dim"], 16);
    EXPECT_EQ((*a)["features"], featureNetDir() + "/feat_kw.pt");
    EXPECT_EQ((*a)["features_sha256"].get<std::string>().size(), 64u);
    EXPECT_GE((*a)["seconds"].get<double>(), 0.0);
    ASSERT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);

    // The same object: real features from memory. A new one: from the file. Same numbers.
    const auto b = first.evaluate(g, real);
    EXPECT_EQ((*b)["real_cache"], "hit");
    EXPECT_EQ((*b)["fid"].get<double>(), fid);
    FeatureMetrics second(options(dir.path().string()), torch::kCPU);
    const auto c = second.evaluate(g, real, cb);
    EXPECT_EQ((*c)["real_cache"], "hit");
    for (const char* k : {"fid", "kid", "kid_std", "precision", "recall"}) EXPECT_EQ((*c)[k], (*a)[k]) << k;

    // A corrupt cache file: a warning, recomputed, the same numbers, the file repaired.
    const fs::path file = fs::directory_iterator(dir.path())->path();
    {
        std::string bytes = slurpFile(file.string());
        bytes[bytes.size() / 2] ^= 0x10;
        std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    }
    FeatureMetrics third(options(dir.path().string()), torch::kCPU);
    const auto d = third.evaluate(g, real, cb);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("checksum mismatch"), std::string::npos) << warnings[0];
    EXPECT_EQ((*d)["real_cache"], "miss");
    for (const char* k : {"fid", "kid", "precision", "recall"}) EXPECT_EQ((*d)[k], (*a)[k]) << k;
    FeatureMetrics fourth(options(dir.path().string()), torch::kCPU);
    EXPECT_EQ((*fourth.evaluate(g, real, cb))["real_cache"], "hit");
    EXPECT_EQ(warnings.size(), 1u);

    // Another feature model is another feature space: another cache entry.
    MetricOptions plain = options(dir.path().string());
    plain.features = featureNetDir() + "/feat_plain.pt";
    FeatureMetrics other(plain, torch::kCPU);
    const auto e = other.evaluate(g, real);
    EXPECT_EQ((*e)["real_cache"], "miss");
    EXPECT_EQ((*e)["feature_dim"], 12);
    EXPECT_NE((*e)["fid"], (*a)["fid"]);
}

TEST(FeatureMetrics, ResultsDoNotDependOnTheBatchAndCacheCanBeOff) {
    if (featureNetDir().empty()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    const RealImageSource real = FeatureMetrics::realSource("synthetic", tinyRun());
    Generator g = tinyGenerator();
    MetricOptions o = options(dir.path().string());
    o.cache = false;
    o.metrics = {"fid"};
    FeatureMetrics a(o, torch::kCPU);
    const auto ra = a.evaluate(g, real);
    EXPECT_EQ((*ra)["real_cache"], "off");
    EXPECT_FALSE(ra->contains("kid"));
    EXPECT_FALSE(ra->contains("precision"));
    EXPECT_TRUE(fs::is_empty(dir.path()));
    o.batch = 7;
    FeatureMetrics b(o, torch::kCPU);
    EXPECT_TRUE(relClose((*b.evaluate(g, real))["fid"].get<double>(), (*ra)["fid"].get<double>(), 1e-5));
    // More real images than the source has: capped at the source.
    o.realSamples = 1000;
    FeatureMetrics c(o, torch::kCPU);
    EXPECT_EQ((*c.evaluate(g, real))["real_samples"], 48);
    // A generator of another size is a caller error.
    TrainConfig big = tinyRun();
    big.model = Presets::get("naive-64");
    EXPECT_THROW(a.evaluate(g, FeatureMetrics::realSource("synthetic", big)), DataError);
    // Cancelled before the first batch: no result.
    std::atomic<bool> cancel{true};
    MetricCallbacks cb;
    cb.cancel = &cancel;
    EXPECT_FALSE(FeatureMetrics(o, torch::kCPU).evaluate(g, real, cb).has_value());
}

TEST(TrainingMetrics, EventAtCheckpointsLeavesTrainingUntouched) {
    if (featureNetDir().empty()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    TrainConfig cfg = tinyRun();
    cfg.metricEveryCheckpoints = 0;
    EXPECT_FALSE(TrainingMetrics(cfg, torch::kCPU).enabled());
    cfg.metricEveryCheckpoints = 2;
    cfg.metrics = {"fid", "kid", "pr"};
    cfg.metricFeatures = featureNetDir() + "/feat_kw.pt";
    cfg.metricSamples = 24;
    cfg.metricCacheDir = dir.path().string();
    TrainingMetrics tm(cfg, torch::kCPU);
    EXPECT_TRUE(tm.enabled());
    EXPECT_FALSE(tm.due(0));
    EXPECT_FALSE(tm.due(1));
    EXPECT_TRUE(tm.due(2));
    EXPECT_FALSE(tm.due(3));
    EXPECT_TRUE(tm.due(4));

    Generator g = tinyGenerator();
    g->train();
    torch::manual_seed(99);
    const auto e = tm.evaluate(g, 120);
    const auto afterEval = torch::randn({4});
    torch::manual_seed(99);
    EXPECT_TRUE(torch::equal(afterEval, torch::randn({4})));  // the default generator was not drawn from
    EXPECT_TRUE(g->is_training());
    EXPECT_EQ(e["kind"], "metric");
    EXPECT_EQ(e["step"], 120);
    EXPECT_EQ(e["samples"], 24);
    EXPECT_EQ(e["features"], cfg.metricFeatures);
    for (const char* k : {"fid", "kid", "kid_std", "precision", "recall", "seconds"}) EXPECT_TRUE(e[k].is_number()) << k << " " << e.dump();
    EXPECT_FALSE(e.contains("warnings"));
    // Same z at every checkpoint: an unchanged generator gets the same numbers.
    const auto again = tm.evaluate(g, 240);
    EXPECT_EQ(again["fid"], e["fid"]);
    EXPECT_EQ(again["real_cache"], "hit");

    // Cancelled (the run is stopping): nulls with the reason, never a throw.
    std::atomic<bool> stop{true};
    cfg.metricCacheDir = (dir.path() / "other").string();
    TrainingMetrics uncached(cfg, torch::kCPU);
    const auto c = uncached.evaluate(g, 360, &stop);
    EXPECT_TRUE(c["fid"].is_null());
    EXPECT_NE(c["fid_unavailable"].get<std::string>().find("cancelled"), std::string::npos);
}

TEST(TrainingMetrics, ProblemsBecomeUnavailableReasons) {
    TrainConfig cfg = tinyRun();
    cfg.metricEveryCheckpoints = 1;
    cfg.metrics = {"fid"};
    Generator g = tinyGenerator();
    const auto none = TrainingMetrics(cfg, torch::kCPU).evaluate(g, 5);
    EXPECT_EQ(none["kind"], "metric");
    EXPECT_EQ(none["step"], 5);
    EXPECT_TRUE(none["fid"].is_null());
    EXPECT_EQ(none["fid_unavailable"], FeatureMetrics::noFeatureModelReason());
    EXPECT_FALSE(none.contains("kid"));

    if (featureNetDir().empty()) return;
    TempDir dir;
    cfg.metricFeatures = featureNetDir() + "/feat_kw.pt";
    cfg.metricCacheDir = dir.path().string();
    cfg.data = dir.file("no-such-folder");
    const auto bad = TrainingMetrics(cfg, torch::kCPU).evaluate(g, 6);
    EXPECT_TRUE(bad["fid"].is_null());
    EXPECT_NE(bad["fid_unavailable"].get<std::string>().find("no-such-folder"), std::string::npos) << bad.dump();
}

TEST(TrainConfig, MetricKeysRoundTripAndValidate) {
    TrainConfig cfg;
    EXPECT_EQ(cfg.metricEveryCheckpoints, 1);
    EXPECT_EQ(cfg.metricSamples, 2000);
    EXPECT_EQ(cfg.metrics, (std::vector<std::string>{"fid", "kid", "pr", "swd"}));
    cfg.metricEveryCheckpoints = 3;
    cfg.metricFeatures = "/models/inception-2015-12-05.pt";
    cfg.metricSamples = 5000;
    cfg.metrics = {"kid", "fid"};
    cfg.metricCacheDir = "/var/cache/fid";
    const nlohmann::json j = cfg.toJson();
    EXPECT_EQ(j["metric_every_checkpoints"], 3);
    EXPECT_EQ(j["metrics"], nlohmann::json::array({"kid", "fid"}));
    TrainConfig back;
    back.merge(j);
    EXPECT_EQ(back.metricEveryCheckpoints, 3);
    EXPECT_EQ(back.metricFeatures, cfg.metricFeatures);
    EXPECT_EQ(back.metricSamples, 5000);
    EXPECT_EQ(back.metrics, cfg.metrics);
    EXPECT_EQ(back.metricCacheDir, cfg.metricCacheDir);
    EXPECT_EQ(back.toJson(), j);
    back.validate();

    auto invalid = [](const nlohmann::json& patch, const std::string& expect) {
        TrainConfig c;
        c.merge(patch);
        try {
            c.validate();
            ADD_FAILURE() << patch.dump() << " accepted";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
        }
    };
    invalid({{"metrics", {"fid", "inception_score"}}}, "metrics 'inception_score' is unknown");
    invalid({{"metrics", nlohmann::json::array()}}, "metrics is empty");
    invalid({{"metric_samples", 1}}, "metric_samples");
    invalid({{"metric_every_checkpoints", -1}}, "metric_every_checkpoints");
    EXPECT_THROW(TrainConfig().merge({{"metrics", "fid"}}), ConfigError);  // a list, not a string
}
