// FID/KID off the training loop (TrainingMetrics' background evaluation): a training run goes on
// stepping while an evaluation is held by the test hook, and the metric event arrives later,
// tagged with the step G was copied at; the queue keeps the newest waiting evaluation and records
// a replaced one as skipped; a stop cancels what runs and waits; copying G leaves torch's default
// generator alone. The feature network comes from tests/python/make_feature_net.py.
#include <gtest/gtest.h>

#include <torch/torch.h>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/model/Presets.h"
#include "base/run/TrainObserver.h"
#include "ml/eval/MetricsTestUtil.h"
#include "ml/eval/TrainingMetrics.h"
#include "ml/train/Trainer.h"
#include "support/TempDir.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {

TrainConfig metricRun(const std::string& cacheDir) {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.batch = 8;
    cfg.steps = 60;
    cfg.logEvery = 2;
    cfg.sampleEvery = 0;
    cfg.checkpointEvery = 10;
    cfg.syntheticImages = 512;
    cfg.loaderThreads = 2;
    cfg.seed = 5;
    cfg.metricEveryCheckpoints = 2;  // checkpoints at 10, 20, ...: metrics at 20, 40, 60
    cfg.metricFeatures = featureNetDir() + "/feat_kw.pt";
    cfg.metrics = {"fid", "kid", "pr"};  // the machinery under test, not SWD
    cfg.metricSamples = 24;
    cfg.metricCacheDir = cacheDir;
    return cfg;
}

// Every event as the trainer hands it over, and a wait for a metrics event at or past a step.
class Recorder : public TrainObserver {
public:
    void onEvent(const nlohmann::json& e) override {
        std::lock_guard<std::mutex> lock(mu_);
        events_.push_back(e);
        if (e.value("kind", "") == "metrics") lastStep_ = e.value("step", int64_t{0});
        cv_.notify_all();
    }
    /// False when the trainer logged no step >= `step` within `limit` (it was not training).
    bool waitForStep(int64_t step, std::chrono::seconds limit) {
        std::unique_lock<std::mutex> lock(mu_);
        return cv_.wait_for(lock, limit, [&] { return lastStep_ >= step; });
    }
    std::vector<nlohmann::json> events() {
        std::lock_guard<std::mutex> lock(mu_);
        return events_;
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<nlohmann::json> events_;
    int64_t lastStep_ = 0;
};

struct HookReset {
    ~HookReset() { TrainingMetrics::setBackgroundHookForTests({}); }
};

bool hasNumbers(const nlohmann::json& e) { return e["fid"].is_number() && e["kid"].is_number(); }
// A null metric reads back as NaN.
bool hasFid(const MetricEvent& e) { return e.fid && !std::isnan(*e.fid); }

}  // namespace

TEST(BackgroundMetrics, TrainingStepsOnWhileAnEvaluationRuns) {
    if (featureNetDir().empty()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    Recorder rec;
    HookReset reset;
    // The evaluation of step 20 waits until training has logged step 30 (up to 120 s: on a
    // synchronous evaluation training would never get there and the wait runs out).
    std::atomic<bool> progressed{false};
    TrainingMetrics::setBackgroundHookForTests([&](int64_t step, const std::atomic<bool>&) {
        if (step == 20) progressed = rec.waitForStep(30, std::chrono::seconds(120));
    });
    std::atomic<bool> stop{false};
    Trainer trainer(metricRun(dir / "cache"), dir / "run", false, &rec);
    EXPECT_EQ(trainer.run(stop), 60);
    EXPECT_TRUE(progressed) << "no training step was logged while the evaluation of step 20 ran";

    const auto events = rec.events();
    std::vector<size_t> metricAt;  // index in the log of each metric event
    size_t step30 = 0, finished = 0;
    for (size_t i = 0; i < events.size(); ++i) {
        const std::string kind = events[i]["kind"];
        if (kind == "metric") metricAt.push_back(i);
        if (kind == "metrics" && events[i]["step"] == 30) step30 = i;
        if (kind == "status" && events[i]["state"] == "finished") finished = i;
    }
    ASSERT_EQ(metricAt.size(), 3u);
    const auto& m20 = events[metricAt[0]];
    EXPECT_EQ(m20["step"], 20);  // the step G was copied at, logged when the evaluation ended
    EXPECT_TRUE(hasNumbers(m20)) << m20.dump();
    EXPECT_GT(metricAt[0], step30);
    // metrics events stamped inside the evaluation's window (after its step, before its event)
    int inside = 0;
    for (size_t i = 0; i < metricAt[0]; ++i)
        if (events[i]["kind"] == "metrics" && events[i]["step"].get<int64_t>() > 20 && events[i]["t"].get<double>() <= m20["t"].get<double>()) ++inside;
    EXPECT_GE(inside, 5);
    // step 40: evaluated, or replaced by 60 while 20 still ran (then recorded as skipped)
    const auto& m40 = events[metricAt[1]];
    EXPECT_EQ(m40["step"], 40);
    if (!hasNumbers(m40)) {
        EXPECT_EQ(m40["fid_unavailable"].get<std::string>().rfind("skipped: ", 0), 0u) << m40.dump();
    }
    // the last checkpoint's evaluation is awaited before the final status
    EXPECT_EQ(events[metricAt[2]]["step"], 60);
    EXPECT_TRUE(hasNumbers(events[metricAt[2]])) << events[metricAt[2]].dump();
    EXPECT_GT(finished, metricAt[2]);
    // events.jsonl has what the observer saw, in the same order
    std::ifstream log(dir / "run/events.jsonl");
    std::vector<int64_t> logged;
    for (std::string line; std::getline(log, line);) {
        const auto e = nlohmann::json::parse(line);
        if (e["kind"] == "metric") logged.push_back(e["step"]);
    }
    EXPECT_EQ(logged, (std::vector<int64_t>{20, 40, 60}));
}

// A stop (as from SIGTERM) while an evaluation runs: the run ends promptly, cancelling it (the
// hook holds the evaluation of step 20 until the cancel flag is up, which only the run's end
// raises), and its event says so, before the stopped status.
TEST(BackgroundMetrics, AStopCancelsTheRunningEvaluation) {
    if (featureNetDir().empty()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    HookReset reset;
    std::atomic<bool> stop{false};
    struct StopAt30 : Recorder {
        std::atomic<bool>* stop = nullptr;
        void onEvent(const nlohmann::json& e) override {
            Recorder::onEvent(e);
            if (e.value("kind", "") == "metrics" && e.value("step", int64_t{0}) >= 30) *stop = true;
        }
    } rec;
    rec.stop = &stop;
    std::atomic<bool> sawCancel{false};
    TrainingMetrics::setBackgroundHookForTests([&](int64_t step, const std::atomic<bool>& cancelled) {
        if (step != 20) return;
        for (int i = 0; i < 1200 && !cancelled; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        sawCancel = cancelled.load();
    });
    TrainConfig cfg = metricRun(dir / "cache");
    cfg.steps = 100000;
    Trainer trainer(cfg, dir / "run", false, &rec);
    const int64_t done = trainer.run(stop);
    EXPECT_LT(done, 100000);
    EXPECT_TRUE(sawCancel);
    const auto events = rec.events();
    size_t metricEvents = 0, lastMetric = 0, stopped = 0;
    for (size_t i = 0; i < events.size(); ++i) {
        if (events[i]["kind"] == "metric") {
            if (metricEvents++ == 0) {
                EXPECT_EQ(events[i]["step"], 20);
            }
            EXPECT_NE(events[i].value("fid_unavailable", "").find("cancelled: the run is stopping"), std::string::npos) << events[i].dump();
            lastMetric = i;
        }
        if (events[i]["kind"] == "status" && events[i]["state"] == "stopped") stopped = i;
    }
    EXPECT_GE(metricEvents, 1u);
    EXPECT_GT(stopped, lastMetric);
}

TEST(BackgroundMetrics, OneRunsTheNewestWaitsAndStopCancels) {
    if (featureNetDir().empty()) GTEST_SKIP() << STREETGAN_PYTHON << " has no torch";
    TempDir dir;
    HookReset reset;
    TrainConfig cfg = metricRun(dir.path().string());
    TrainingMetrics tm(cfg, torch::kCPU);
    std::mutex mu;
    std::condition_variable cv;
    bool release = false, holding = false;
    std::atomic<bool> running7{false};
    TrainingMetrics::setBackgroundHookForTests([&](int64_t step, const std::atomic<bool>& cancelled) {
        if (step == 7) {  // the stop case: held until finish() cancels (bounded: a failure, not a hang)
            running7 = true;
            for (int i = 0; i < 1200 && !cancelled; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            return;
        }
        if (step != 1) return;
        std::unique_lock<std::mutex> lock(mu);
        holding = true;
        cv.notify_all();
        cv.wait(lock, [&] { return release; });
    });
    torch::manual_seed(17);
    Generator g(cfg.model);
    g->train();
    torch::manual_seed(99);
    tm.submit(g, 1);
    {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return holding; });
    }
    tm.submit(g, 2);
    tm.submit(g, 3);  // replaces 2, which is recorded as skipped
    const auto afterSubmit = torch::randn({4});
    torch::manual_seed(99);
    EXPECT_TRUE(torch::equal(afterSubmit, torch::randn({4})));  // copying G drew nothing
    EXPECT_TRUE(g->is_training());
    EXPECT_TRUE(tm.busy());
    EXPECT_TRUE(tm.poll().empty());  // 2's record waits for 1 (events leave in step order)
    {
        std::lock_guard<std::mutex> lock(mu);
        release = true;
    }
    cv.notify_all();
    const auto events = tm.finish(nullptr);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].step, 1);
    EXPECT_TRUE(hasFid(events[0]));
    EXPECT_EQ(events[1].step, 2);
    EXPECT_FALSE(hasFid(events[1]));
    EXPECT_NE(events[1].fidUnavailable.value_or("").find("skipped: the evaluation of step 1 was still running"), std::string::npos);
    EXPECT_EQ(events[2].step, 3);
    EXPECT_EQ(events[2].fid, events[0].fid);  // the same G: the copies are exact
    EXPECT_FALSE(tm.busy());

    // A stop cancels the running and the waiting evaluation: their events say so.
    TrainingMetrics stopping(cfg, torch::kCPU);
    stopping.submit(g, 7);
    // 8 must find 7 running, not waiting (a waiting 7 would be replaced: "skipped"; seen under ASan).
    for (int i = 0; i < 1200 && !running7; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(running7);
    stopping.submit(g, 8);
    std::atomic<bool> stop{true};
    const auto cancelled = stopping.finish(&stop);
    ASSERT_EQ(cancelled.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(cancelled[i].step, int64_t(7 + i));
        EXPECT_FALSE(hasFid(cancelled[i]));
        EXPECT_NE(cancelled[i].fidUnavailable.value_or("").find("cancelled: the run is stopping"), std::string::npos) << toJson(cancelled[i]).dump();
    }
}
