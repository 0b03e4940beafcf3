// What a training run keeps of its checkpoints (ml/train/CheckpointKeeper.h, issue 43 item 4), on
// real tiny-32 runs with SWD of 16 images at every checkpoint: a file per mid-epoch checkpoint
// (the epochs' and the run's end keep checkpoint_<epoch>.pt); pruning keeps the newest
// keep_checkpoints mid-epoch files, every epoch file and best.pt, and spares a checkpoint whose
// evaluation is still running; best.pt is the byte copy of the last best event's source, whose
// value is the lowest SWD logged; a resume keeps the best so far and renames the epoch file it
// continues from mid-epoch, and always continues from the newest checkpoint whatever its name;
// --best-metric fid without a feature model is refused with the flag to pass.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/run/RunDirectory.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/eval/TrainingMetrics.h"
#include "ml/train/Trainer.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

// 128 images in batches of 8: 16 steps an epoch.
TrainConfig keepingRun(int64_t steps, const std::string& cacheDir) {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.batch = 8;
    cfg.steps = steps;
    cfg.logEvery = 4;
    cfg.sampleEvery = 0;
    cfg.checkpointEvery = 4;
    cfg.syntheticImages = 128;
    cfg.loaderThreads = 2;
    cfg.seed = 3;
    cfg.metrics = {"swd"};
    cfg.metricSwdSamples = 16;
    cfg.metricCacheDir = cacheDir;
    return cfg;
}

std::vector<nlohmann::json> eventsOf(const TempDir& run, const std::string& kind) {
    std::vector<nlohmann::json> out;
    std::ifstream in(run / "events.jsonl");
    std::string line;
    while (std::getline(in, line)) {
        nlohmann::json e = nlohmann::json::parse(line);
        if (e["kind"] == kind) out.push_back(std::move(e));
    }
    return out;
}

std::set<std::string> checkpointFiles(const TempDir& run) {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(run / "checkpoints")) out.insert(e.path().filename().string());
    return out;
}

std::string bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// The lowest finite SWD of the run's metric events.
double lowestSwd(const TempDir& run) {
    double low = std::numeric_limits<double>::infinity();
    for (const auto& m : eventsOf(run, "metric"))
        if (m["swd"].is_number()) low = std::min(low, m["swd"].get<double>());
    return low;
}

struct HookReset {
    ~HookReset() { TrainingMetrics::setBackgroundHookForTests({}); }
};

}  // namespace

TEST(CheckpointKeeping, EachCheckpointStepHasItsFileAndPruningKeepsTheNewestEpochEndsAndBest) {
    TempDir run, cache;
    TrainConfig cfg = keepingRun(40, cache.path().string());
    cfg.keepCheckpoints = 2;
    std::atomic<bool> stop{false};
    ASSERT_EQ(Trainer(cfg, run.path().string(), false).run(stop), 40);

    // Steps 4..40: 16 and 32 end epochs 0 and 1, 40 ends the run inside epoch 2.
    std::vector<std::string> paths;
    for (const auto& c : eventsOf(run, "checkpoint")) paths.push_back(c["path"]);
    EXPECT_EQ(paths, (std::vector<std::string>{"checkpoints/checkpoint_0_step4.pt", "checkpoints/checkpoint_0_step8.pt", "checkpoints/checkpoint_0_step12.pt",
                                               "checkpoints/checkpoint_0.pt", "checkpoints/checkpoint_1_step20.pt", "checkpoints/checkpoint_1_step24.pt",
                                               "checkpoints/checkpoint_1_step28.pt", "checkpoints/checkpoint_1.pt", "checkpoints/checkpoint_2_step36.pt",
                                               "checkpoints/checkpoint_2.pt"}));
    EXPECT_EQ(checkpointFiles(run),
              (std::set<std::string>{"checkpoint_0.pt", "checkpoint_1.pt", "checkpoint_2.pt", "checkpoint_1_step28.pt", "checkpoint_2_step36.pt", "best.pt"}));
    EXPECT_EQ(Checkpoint::load(run / "checkpoints/checkpoint_2.pt").step, 40);
    EXPECT_EQ(Checkpoint::load(run / "checkpoints/checkpoint_1_step28.pt").step, 28);

    // Every better SWD made a best event; the last holds the lowest, and best.pt loads.
    const auto best = eventsOf(run, "best");
    ASSERT_FALSE(best.empty());
    for (size_t i = 1; i < best.size(); ++i) EXPECT_LT(best[i]["value"].get<double>(), best[i - 1]["value"].get<double>());
    EXPECT_EQ(best.back()["value"].get<double>(), lowestSwd(run));
    EXPECT_EQ(best.back()["metric"], "swd");
    EXPECT_EQ(best.back()["path"], "checkpoints/best.pt");
    EXPECT_EQ(Checkpoint::load(run / "checkpoints/best.pt").step, best.back()["step"].get<int64_t>());
}

TEST(CheckpointKeeping, BestIsTheSourceOfTheLastBestEventByteForByteAndAResumeKeepsIt) {
    TempDir run, cache;
    std::atomic<bool> stop{false};
    TrainConfig cfg = keepingRun(10, cache.path().string());
    cfg.keepCheckpoints = 0;  // every source stays, to compare with
    ASSERT_EQ(Trainer(cfg, run.path().string(), false).run(stop), 10);
    auto best = eventsOf(run, "best");
    ASSERT_FALSE(best.empty());
    const std::string source = run / best.back()["source"].get<std::string>();
    EXPECT_EQ(bytes(run / "checkpoints/best.pt"), bytes(source)) << source;
    EXPECT_EQ(best.back()["value"].get<double>(), lowestSwd(run));
    EXPECT_EQ(best.back()["epoch"], 0);

    // The run ended inside epoch 0 (step 10 of 16) with checkpoint_0.pt. Its resume renames that
    // file to its step's name before writing step 12, and checkpoint_0.pt becomes the epoch's end.
    // The best so far is recovered from the log: with a best of 0 recorded no later figure beats
    // it, and best.pt stays as it was.
    {
        nlohmann::json unbeatable = best.back();
        unbeatable["value"] = 0.0;
        std::ofstream(run / "events.jsonl", std::ios::app) << unbeatable.dump() << "\n";
    }
    const std::string bestBefore = bytes(run / "checkpoints/best.pt");
    cfg.steps = 20;
    ASSERT_EQ(Trainer(cfg, run.path().string(), /*resume=*/true).run(stop), 20);
    EXPECT_EQ(eventsOf(run, "best").size(), best.size() + 1);  // only the one appended
    EXPECT_EQ(bytes(run / "checkpoints/best.pt"), bestBefore);
    EXPECT_EQ(Checkpoint::load(run / "checkpoints/checkpoint_0_step10.pt").step, 10);
    EXPECT_EQ(Checkpoint::load(run / "checkpoints/checkpoint_0_step12.pt").step, 12);
    EXPECT_EQ(Checkpoint::load(run / "checkpoints/checkpoint_0.pt").step, 16);
    EXPECT_EQ(Checkpoint::load(run / "checkpoints/checkpoint_1.pt").step, 20);
    EXPECT_EQ(checkpointFiles(run), (std::set<std::string>{"checkpoint_0_step4.pt", "checkpoint_0_step8.pt", "checkpoint_0_step10.pt", "checkpoint_0_step12.pt",
                                                           "checkpoint_0.pt", "checkpoint_1.pt", "best.pt"}));
}

TEST(CheckpointKeeping, ACheckpointWhoseEvaluationRunsSurvivesPruning) {
    HookReset reset;
    TempDir run, cache;
    TrainConfig cfg = keepingRun(16, cache.path().string());
    cfg.checkpointEvery = 2;
    cfg.keepCheckpoints = 1;
    const std::string step2 = run / "checkpoints/checkpoint_0_step2.pt", step8 = run / "checkpoints/checkpoint_0_step8.pt";
    std::atomic<int> step2WhileEvaluating{-1};  // 1: there, 0: gone, -1: not seen
    // Step 2's evaluation holds until the run has written step 8: by then steps 4 and 6 were
    // written and pruned around it.
    TrainingMetrics::setBackgroundHookForTests([&](int64_t step, const std::atomic<bool>&) {
        if (step != 2) return;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
        while (!fs::exists(step8) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        step2WhileEvaluating = fs::exists(step8) ? (fs::exists(step2) ? 1 : 0) : -1;
    });
    std::atomic<bool> stop{false};
    ASSERT_EQ(Trainer(cfg, run.path().string(), false).run(stop), 16);
    EXPECT_EQ(step2WhileEvaluating.load(), 1);
    bool measured = false;
    for (const auto& m : eventsOf(run, "metric")) measured = measured || (m["step"] == 2 && m["swd"].is_number());
    EXPECT_TRUE(measured);
    // Its figure known, it went the way of the others: the newest mid-epoch file is left.
    EXPECT_FALSE(fs::exists(step2));
    EXPECT_EQ(checkpointFiles(run), (std::set<std::string>{"checkpoint_0_step14.pt", "checkpoint_0.pt", "best.pt"}));
}

TEST(CheckpointKeeping, BestMetricFidWithoutAFeatureModelIsRefusedNamingTheFlag) {
    TempDir run, cache;
    TrainConfig cfg = keepingRun(4, cache.path().string());
    cfg.metrics = {"fid", "swd"};
    cfg.bestMetric = "fid";
    try {
        std::atomic<bool> stop{false};
        Trainer(cfg, run.path().string(), false).run(stop);
        FAIL() << "trained with --best-metric fid and no feature model";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("best_metric fid needs the feature model: pass --metric-features FILE"), std::string::npos) << e.what();
    }
}

TEST(CheckpointKeeping, AResumeContinuesFromTheNewestCheckpointWhateverItsName) {
    TempDir run, cache;
    std::atomic<bool> stop{false};
    TrainConfig cfg = keepingRun(10, cache.path().string());
    cfg.keepCheckpoints = 0;
    cfg.metricEveryCheckpoints = 0;  // no figures: no best.pt either
    ASSERT_EQ(Trainer(cfg, run.path().string(), false).run(stop), 10);
    // Ends inside epoch 0 twice: at 10, then (resumed) at 14, after the mid-epoch checkpoint of 12.
    cfg.steps = 14;
    ASSERT_EQ(Trainer(cfg, run.path().string(), true).run(stop), 14);
    const RunDirectory dir(run.path().string(), false);
    EXPECT_EQ(dir.latestCheckpoint(), dir.checkpointPath(0));
    EXPECT_EQ(Checkpoint::load(dir.checkpointPath(0)).step, 14);
    EXPECT_EQ(Checkpoint::load(dir.stepCheckpointPath(0, 10)).step, 10);
    cfg.steps = 20;
    ASSERT_EQ(Trainer(cfg, run.path().string(), true).run(stop), 20);
    const auto resumes = nlohmann::json::parse(std::ifstream(run / "run.json"))["resumes"];
    ASSERT_EQ(resumes.size(), 2u);
    EXPECT_EQ(resumes[0]["step"], 10);
    EXPECT_EQ(resumes[1]["step"], 14);
    EXPECT_EQ(resumes[1]["checkpoint"], dir.checkpointPath(0));
    // 16 ended the epoch: its file replaced the one of step 14 (no newer checkpoint of the epoch came between).
    EXPECT_EQ(checkpointFiles(run), (std::set<std::string>{"checkpoint_0_step4.pt", "checkpoint_0_step8.pt", "checkpoint_0_step10.pt", "checkpoint_0_step12.pt",
                                                           "checkpoint_0.pt", "checkpoint_1.pt"}));
    EXPECT_EQ(Checkpoint::load(dir.checkpointPath(0)).step, 16);
    EXPECT_TRUE(eventsOf(run, "best").empty());
}
