// eval --metric fid|kid|pr|swd through the real streetgan-trainer binary, with the small TorchScript
// feature network tests/python/make_feature_net.py writes (Debian's python3-torch), and the
// train flags that configure metrics at checkpoints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/tensorboard/TfRecordReader.h"
#include "support/CliRunner.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;

namespace {

// One tiny trained run and the feature networks, shared by the tests (read-only afterwards).
class MetricsCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir();
        CliRunner cli(dir_->path());
        trainResult_ = new CliResult(cli.run({"train",
                                              "--run-dir",
                                              *dir_ / "run",
                                              "--preset",
                                              "tiny-32",
                                              "--steps",
                                              "6",
                                              "--batch",
                                              "8",
                                              "--log-every",
                                              "3",
                                              "--sample-every",
                                              "0",
                                              "--checkpoint-every",
                                              "2",
                                              "--synthetic-images",
                                              "96",
                                              "--seed",
                                              "5",
                                              "--metric-every-checkpoints",
                                              "2",
                                              "--metric-samples",
                                              "64",
                                              "--metrics",
                                              "fid,kid",
                                              "--metric-features",
                                              "/models/inception.pt"}));
        const std::string cmd = std::string(STREETGAN_PYTHON) + " " + STREETGAN_TEST_PYTHON_DIR + "/make_feature_net.py " + CliRunner::quote(*dir_ / "nets");
        pythonHasTorch_ = std::system((std::string(STREETGAN_PYTHON) + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0;
        haveNets_ = pythonHasTorch_ && std::system(cmd.c_str()) == 0;
    }
    static void TearDownTestSuite() {
        delete trainResult_;
        delete dir_;
    }
    static std::string checkpoint() { return *dir_ / "run/checkpoints/checkpoint_0.pt"; }
    static std::string net() { return *dir_ / "nets/feat_kw.pt"; }

    TempDir tmp;
    CliRunner cli{tmp.path()};
    static TempDir* dir_;
    static CliResult* trainResult_;
    static bool haveNets_;
    static bool pythonHasTorch_;
};
TempDir* MetricsCli::dir_ = nullptr;
CliResult* MetricsCli::trainResult_ = nullptr;
bool MetricsCli::haveNets_ = false;
bool MetricsCli::pythonHasTorch_ = false;

// Skips only where python3-torch is missing; with torch there, a fixture script that fails is a
// failure of ours, never a skip.
#define REQUIRE_FEATURE_NETS()                                                                 \
    if (!pythonHasTorch_) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch (python3-torch)"; \
    ASSERT_TRUE(haveNets_) << "tests/python/make_feature_net.py failed although " << STREETGAN_PYTHON << " has torch"

}  // namespace

TEST_F(MetricsCli, TrainStoresTheMetricSettings) {
    ASSERT_EQ(trainResult_->code, 0) << trainResult_->err;
    const auto run = nlohmann::json::parse(CliRunner::slurp(*dir_ / "run/run.json"));
    const auto& cfg = run.at("config");
    EXPECT_EQ(cfg["metric_every_checkpoints"], 2);
    EXPECT_EQ(cfg["metric_samples"], 64);
    EXPECT_EQ(cfg["metrics"], nlohmann::json::array({"fid", "kid"}));
    EXPECT_EQ(cfg["metric_features"], "/models/inception.pt");
    const CliResult bad = cli.run({"train", "--run-dir", tmp / "r", "--steps", "1", "--metrics", "fid,inception-score"});
    EXPECT_NE(bad.code, 0);
}

std::vector<nlohmann::json> metricEvents(const std::string& runDir) {
    std::vector<nlohmann::json> out;
    std::istringstream lines(CliRunner::slurp(runDir + "/events.jsonl"));
    for (std::string line; std::getline(lines, line);) {
        const auto e = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (e.is_object() && e.value("kind", "") == "metric") out.push_back(e);
    }
    return out;
}

TEST_F(MetricsCli, TrainingReportsAnUnusableFeatureModelAsUnavailable) {
    ASSERT_EQ(trainResult_->code, 0) << trainResult_->err;
    // Checkpoints at steps 2, 4, 6; metrics every second one: step 4 only. The model path does not
    // exist: the run goes on and the event says why there is no number.
    const auto events = metricEvents(*dir_ / "run");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0]["step"], 4);
    EXPECT_TRUE(events[0]["fid"].is_null());
    EXPECT_TRUE(events[0]["kid"].is_null());
    EXPECT_NE(events[0]["fid_unavailable"].get<std::string>().find("/models/inception.pt' does not exist"), std::string::npos) << events[0].dump();
    EXPECT_FALSE(events[0].contains("precision"));  // not asked for
}

TEST_F(MetricsCli, TrainingWritesMetricEventsAtCheckpoints) {
    REQUIRE_FEATURE_NETS();
    const CliResult r = cli.run({"train",      "--run-dir",
                                 tmp / "run",  "--preset",
                                 "tiny-32",    "--steps",
                                 "4",          "--batch",
                                 "8",          "--sample-every",
                                 "0",          "--checkpoint-every",
                                 "2",          "--synthetic-images",
                                 "64",         "--metric-every-checkpoints",
                                 "1",          "--metric-samples",
                                 "24",         "--metric-features",
                                 net(),        "--metric-cache-dir",
                                 tmp / "cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto events = metricEvents(tmp / "run");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0]["step"], 2);
    EXPECT_EQ(events[1]["step"], 4);
    for (const auto& e : events) {
        for (const char* k : {"fid", "kid", "kid_std", "precision", "recall", "seconds"}) EXPECT_TRUE(e[k].is_number()) << k << " " << e.dump();
        EXPECT_EQ(e["samples"], 24);
        EXPECT_EQ(e["features"], net());
    }
    EXPECT_EQ(events[0]["real_cache"], "miss");
    EXPECT_EQ(events[1]["real_cache"], "hit");      // real features computed once per run
    EXPECT_NE(events[0]["fid"], events[1]["fid"]);  // the generator changed in between

    // Metrics beyond the default ones, asked for by name: density/coverage and the Vendi score, in
    // the events, in TensorBoard and in eval's text.
    const CliResult dc = cli.run({"train", "--run-dir", tmp / "run", "--resume", "--steps", "6", "--metrics", "dc,pr,vendi"});
    ASSERT_EQ(dc.code, 0) << dc.err;
    const auto more = metricEvents(tmp / "run");
    ASSERT_EQ(more.size(), 3u);
    EXPECT_GE(more[2]["density"].get<double>(), 0.0) << more[2].dump();
    EXPECT_LE(more[2]["coverage"].get<double>(), 1.0) << more[2].dump();
    EXPECT_EQ(more[2]["dc_k"], 5);
    EXPECT_FALSE(more[2].contains("fid"));
    EXPECT_GE(more[2]["vendi"].get<double>(), 1.0) << more[2].dump();
    EXPECT_LE(more[2]["vendi"].get<double>(), 24.0) << more[2].dump();  // at most the 24 samples
    EXPECT_GE(more[2]["vendi_real"].get<double>(), 1.0) << more[2].dump();
    std::set<std::string> tags;
    for (const auto& e : fs::directory_iterator(tmp / "run/tb"))
        for (const auto& ev : streetgan::TfRecordReader::readAllEvents(e.path().string()))
            for (const auto& v : ev.values)
                if (v.simpleValue) tags.insert(v.tag);
    for (const char* tag : {"metrics/fid", "metrics/density", "metrics/coverage", "metrics/vendi", "metrics/vendi_real"}) EXPECT_TRUE(tags.count(tag)) << tag;
    const CliResult text = cli.run({"eval", "--checkpoint", tmp / "run/checkpoints/checkpoint_0.pt", "--metric", "dc", "--samples", "24", "--features", net(),
                                    "--cache-dir", tmp / "cache"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("density/coverage density "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find(", coverage "), std::string::npos) << text.out;
    const CliResult vendi = cli.run({"eval", "--checkpoint", tmp / "run/checkpoints/checkpoint_0.pt", "--metric", "vendi", "--samples", "24", "--features",
                                     net(), "--cache-dir", tmp / "cache"});
    ASSERT_EQ(vendi.code, 0) << vendi.err;
    EXPECT_NE(vendi.out.find("Vendi score vendi "), std::string::npos) << vendi.out;
}

TEST_F(MetricsCli, WithoutAFeatureModelTheMetricIsUnavailable) {
    ASSERT_EQ(trainResult_->code, 0) << trainResult_->err;
    const CliResult r = cli.run({"eval", "--checkpoint", checkpoint(), "--metric", "fid", "--samples", "16", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["fid"].is_null());
    EXPECT_EQ(j["fid_unavailable"], "no feature model: pass --features inception-2015-12-05.pt (clean-fid's TorchScript Inception)");
    EXPECT_EQ(j["metric"], "fid");
    const CliResult text = cli.run({"eval", "--checkpoint", checkpoint(), "--metric", "fid,pr", "--samples", "16"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("FID unavailable: no feature model"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("precision/recall unavailable: no feature model"), std::string::npos) << text.out;
}

TEST_F(MetricsCli, SwdNeedsNoFeatureModelAndIsCached) {
    ASSERT_EQ(trainResult_->code, 0) << trainResult_->err;
    const std::vector<std::string> args = {"eval",          "--checkpoint", checkpoint(),  "--metric",    "swd,fid",
                                           "--swd-samples", "20",           "--cache-dir", tmp / "cache", "--json"};
    const CliResult first = cli.run(args);
    ASSERT_EQ(first.code, 0) << first.err;
    const auto a = nlohmann::json::parse(first.out);
    EXPECT_EQ(a["metric"], "swd,fid");
    EXPECT_TRUE(a["fid"].is_null());  // no feature model
    ASSERT_TRUE(a["swd"].is_number()) << a.dump();
    EXPECT_GT(a["swd"].get<double>(), 0.0);
    ASSERT_EQ(a["swd_levels"].size(), 2u) << a.dump();  // tiny-32: 32 and 16 px
    const double mean = (a["swd_levels"]["32"].get<double>() + a["swd_levels"]["16"].get<double>()) / 2;
    EXPECT_NEAR(a["swd"].get<double>(), mean, 1e-9 * mean);
    EXPECT_EQ(a["swd_samples"], 20);
    EXPECT_EQ(a["swd_real_cache"], "miss");
    const CliResult second = cli.run(args);
    ASSERT_EQ(second.code, 0) << second.err;
    const auto b = nlohmann::json::parse(second.out);
    EXPECT_EQ(b["swd_real_cache"], "hit");
    EXPECT_EQ(b["swd_levels"], a["swd_levels"]);  // the cached real side gives the same figures
    const CliResult text = cli.run({"eval", "--checkpoint", checkpoint(), "--metric", "swd", "--swd-samples", "20", "--no-cache"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("SWD x 1e3 "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find(" 32 px "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find(" 16 px "), std::string::npos) << text.out;
    // swd alone: its count is swd_samples; --samples (fid/kid/pr, parzen) is not reported.
    const CliResult only = cli.run({"eval", "--checkpoint", checkpoint(), "--metric", "swd", "--swd-samples", "20", "--cache-dir", tmp / "cache", "--json"});
    ASSERT_EQ(only.code, 0) << only.err;
    const auto c = nlohmann::json::parse(only.out);
    EXPECT_EQ(c["swd_samples"], 20);
    EXPECT_FALSE(c.contains("samples")) << c.dump();
    EXPECT_EQ(c["swd_levels"], a["swd_levels"]);
}

TEST_F(MetricsCli, AFreshRunGetsSwdAtItsCheckpoints) {
    // No metric flag at all: SWD at every checkpoint, FID/KID/PR null with the reason.
    const CliResult r = cli.run({"train", "--run-dir", tmp / "run", "--preset", "tiny-32", "--steps", "4", "--batch", "8", "--sample-every", "0",
                                 "--checkpoint-every", "2", "--synthetic-images", "40", "--metric-cache-dir", tmp / "cache"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto events = metricEvents(tmp / "run");
    ASSERT_EQ(events.size(), 2u);
    for (size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        EXPECT_EQ(e["step"], 2 * static_cast<int>(i + 1));
        ASSERT_TRUE(e["swd"].is_number()) << e.dump();
        EXPECT_EQ(e["swd_levels"].size(), 2u) << e.dump();
        EXPECT_EQ(e["swd_samples"], 40);  // the default 512, capped at the data set
        EXPECT_TRUE(e["fid"].is_null()) << e.dump();
        EXPECT_NE(e["fid_unavailable"].get<std::string>().find("no feature model"), std::string::npos);
    }
    EXPECT_EQ(events[0]["swd_real_cache"], "miss");
    EXPECT_EQ(events[1]["swd_real_cache"], "hit");
    const auto run = nlohmann::json::parse(CliRunner::slurp(tmp / "run/run.json"));
    EXPECT_EQ(run["config"]["metric_swd_samples"], 512);
    EXPECT_EQ(run["config"]["metric_every_checkpoints"], 1);
}

TEST_F(MetricsCli, BadMetricOrModelIsOneLineAndAnExitCode) {
    ASSERT_EQ(trainResult_->code, 0) << trainResult_->err;
    const CliResult unknown = cli.run({"eval", "--checkpoint", checkpoint(), "--metric", "fid,is"});
    EXPECT_EQ(unknown.code, 3) << unknown.err;
    EXPECT_NE(unknown.err.find("'is' is unknown"), std::string::npos) << unknown.err;
    const CliResult missing = cli.run({"eval", "--checkpoint", checkpoint(), "--metric", "fid", "--features", tmp / "inception.pt"});
    EXPECT_EQ(missing.code, 3) << missing.err;
    EXPECT_NE(missing.err.find("inception.pt' does not exist"), std::string::npos) << missing.err;
    EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

TEST_F(MetricsCli, FidKidPrWithAFeatureModelAndTheCache) {
    ASSERT_EQ(trainResult_->code, 0) << trainResult_->err;
    REQUIRE_FEATURE_NETS();
    const std::vector<std::string> args = {"eval",      "--checkpoint", checkpoint(),    "--metric", "fid,kid,pr",  "--features",  net(),
                                           "--samples", "48",           "--kid-subsets", "5",        "--cache-dir", tmp / "cache", "--json"};
    const CliResult first = cli.run(args);
    ASSERT_EQ(first.code, 0) << first.err;
    const auto a = nlohmann::json::parse(first.out);
    EXPECT_EQ(a["metric"], "fid,kid,pr");
    EXPECT_GT(a["fid"].get<double>(), 0.0);
    EXPECT_TRUE(std::isfinite(a["kid"].get<double>()));
    EXPECT_TRUE(std::isfinite(a["kid_std"].get<double>()));
    EXPECT_GE(a["precision"].get<double>(), 0.0);
    EXPECT_LE(a["recall"].get<double>(), 1.0);
    EXPECT_EQ(a["samples"], 48);
    EXPECT_EQ(a["real_samples"], 48);
    EXPECT_EQ(a["real_cache"], "miss");
    EXPECT_EQ(a["feature_dim"], 16);
    EXPECT_EQ(a["features"], net());

    const CliResult second = cli.run(args);
    ASSERT_EQ(second.code, 0) << second.err;
    const auto b = nlohmann::json::parse(second.out);
    EXPECT_EQ(b["real_cache"], "hit");
    for (const char* k : {"fid", "kid", "kid_std", "precision", "recall"}) EXPECT_EQ(b[k], a[k]) << k;

    // A corrupt cache file: a warning on stderr, the same numbers, exit 0.
    for (const auto& e : fs::directory_iterator(tmp / "cache")) {
        std::string bytes = CliRunner::slurp(e.path());
        bytes[bytes.size() - 5] ^= 1;
        std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << bytes;
    }
    const CliResult third = cli.run(args);
    ASSERT_EQ(third.code, 0) << third.err;
    EXPECT_NE(third.err.find("warning: feature cache file"), std::string::npos) << third.err;
    EXPECT_EQ(nlohmann::json::parse(third.out)["fid"], a["fid"]);

    // Parzen and FID together: both sets of fields in one document.
    const CliResult both = cli.run({"eval", "--checkpoint", checkpoint(), "--metric", "parzen,fid", "--features", net(), "--samples", "48", "--validation",
                                    "10", "--test", "10", "--cache-dir", tmp / "cache", "--json"});
    ASSERT_EQ(both.code, 0) << both.err;
    const auto c = nlohmann::json::parse(both.out);
    EXPECT_EQ(c["fid"], a["fid"]);
    EXPECT_TRUE(std::isfinite(c["log_likelihood"].get<double>()));

    const CliResult text = cli.run({"eval", "--checkpoint", checkpoint(), "--metric", "fid,kid,pr", "--features", net(), "--samples", "48", "--kid-subsets",
                                    "5", "--cache-dir", tmp / "cache"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("FID "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("KID "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("precision "), std::string::npos) << text.out;
}

TEST_F(MetricsCli, FidAgainstAPhotoFolder) {
    ASSERT_EQ(trainResult_->code, 0) << trainResult_->err;
    REQUIRE_FEATURE_NETS();
    ASSERT_EQ(cli.run({"data", "synth", "--count", "30", "--width", "320", "--height", "240", "--out", tmp / "photos"}).code, 0);
    const CliResult r = cli.run({"eval", "--checkpoint", checkpoint(), "--data", tmp / "photos", "--metric", "fid", "--features", net(), "--samples", "40",
                                 "--cache-dir", tmp / "cache", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["fid"].get<double>(), 0.0);
    EXPECT_EQ(j["real_samples"], 30);  // all the photos there are
}
