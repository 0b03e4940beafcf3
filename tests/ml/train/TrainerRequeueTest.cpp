// Slurm's time-limit warning as the Trainer sees it (RequeueSignal), in one process: the run stops
// at the step the warning came, writes that step's checkpoint, calls the requeue after it and
// only then says "requeued" (reason "time limit"); a requeue that fails leaves the run failed,
// never "requeued"; a stop without the warning is the plain stop. (The ranks' agreement and the
// real scontrol requeue: tests/slurm/SlurmJobTest.cpp.)
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "base/run/TrainObserver.h"
#include "base/util/Errors.h"
#include "ml/checkpoint/Checkpoint.h"
#include "ml/train/Trainer.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;
namespace fs = std::filesystem;

namespace {

TrainConfig tinyRun(int64_t steps) {
    TrainConfig cfg;
    cfg.model = Presets::get("tiny-32");
    cfg.batch = 4;
    cfg.steps = steps;
    cfg.logEvery = 1;
    cfg.sampleEvery = 0;
    cfg.checkpointEvery = 0;
    cfg.syntheticImages = 4096;
    cfg.loaderThreads = 1;
    cfg.seed = 3;
    return cfg;
}

std::vector<nlohmann::json> readEvents(const std::string& path) {
    std::vector<nlohmann::json> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
    return out;
}

// Raises the warning as the signal handler does (the requeue flag, then the stop flag) once the
// run has logged step `at`: on the training thread, between two steps, so the stop step is exact.
class WarnAtStep : public TrainObserver {
public:
    WarnAtStep(int64_t at, std::atomic<bool>& requeue, std::atomic<bool>& stop) : at_(at), requeue_(requeue), stop_(stop) {}
    void onEvent(const nlohmann::json& e) override {
        if (e.value("kind", "") == "metrics" && e.value("step", int64_t{0}) == at_) {
            requeue_.store(true);
            stop_.store(true);
        }
    }

private:
    int64_t at_;
    std::atomic<bool>& requeue_;
    std::atomic<bool>& stop_;
};

}  // namespace

TEST(TrainerRequeue, TheWarningCheckpointsRequeuesThenSaysRequeued) {
    TempDir dir;
    std::atomic<bool> stop{false}, warning{false};
    WarnAtStep observer(4, warning, stop);
    Trainer trainer(tinyRun(1000), dir.path(), false, &observer);
    std::vector<nlohmann::json> seenAtRequeue;  // what events.jsonl held when the requeue ran
    RequeueSignal r;
    r.signal = &warning;
    r.requeue = [&] { seenAtRequeue = readEvents(dir / "events.jsonl"); };
    trainer.setRequeue(r);
    EXPECT_EQ(trainer.run(stop), 4);
    EXPECT_TRUE(trainer.requeued());
    ASSERT_FALSE(seenAtRequeue.empty()) << "the requeue was not called";
    bool checkpointBefore = false;
    for (const auto& e : seenAtRequeue) {
        checkpointBefore = checkpointBefore || (e["kind"] == "checkpoint" && e["step"] == 4);
        EXPECT_NE(e.value("state", ""), "requeued") << "said before the requeue ran";
    }
    EXPECT_TRUE(checkpointBefore) << "the requeue ran before the checkpoint of the stop step";
    const auto events = readEvents(dir / "events.jsonl");
    EXPECT_EQ(events.back()["kind"], "status");
    EXPECT_EQ(events.back()["state"], "requeued");
    EXPECT_EQ(events.back()["reason"], "time limit");
    EXPECT_EQ(events.back()["step"], 4);
    EXPECT_EQ(events.size(), seenAtRequeue.size() + 1) << "events after the requeue other than the status";
    bool checkpointed = false;
    for (const auto& e : events)
        if (e["kind"] == "checkpoint")
            checkpointed = checkpointed || (e["step"] == 4 && Checkpoint::load((dir.path() / e["path"].get<std::string>()).string()).step == 4);
    EXPECT_TRUE(checkpointed);

    // The requeued job's `train --resume` continues at step 5.
    std::atomic<bool> noStop{false};
    Trainer resumed(tinyRun(8), dir.path(), /*resume=*/true);
    EXPECT_EQ(resumed.run(noStop), 8);
    std::vector<int64_t> steps;
    for (const auto& e : readEvents(dir / "events.jsonl"))
        if (e["kind"] == "metrics") steps.push_back(e["step"].get<int64_t>());
    EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(TrainerRequeue, ARequeueThatFailsLeavesTheRunFailedNotRequeued) {
    TempDir dir;
    std::atomic<bool> stop{false}, warning{false};
    WarnAtStep observer(2, warning, stop);
    Trainer trainer(tinyRun(1000), dir.path(), false, &observer);
    RequeueSignal r;
    r.signal = &warning;
    r.requeue = [] { throw Error("Slurm did not requeue job 7 at its time-limit warning (scontrol requeue: refused)"); };
    trainer.setRequeue(r);
    EXPECT_THROW(trainer.run(stop), Error);
    EXPECT_FALSE(trainer.requeued());
    const auto events = readEvents(dir / "events.jsonl");
    EXPECT_EQ(events.back()["state"], "failed");
    for (const auto& e : events) EXPECT_NE(e.value("state", ""), "requeued") << e.dump();
    EXPECT_TRUE(fs::exists(dir / "checkpoints/checkpoint_0.pt"));  // the stop step's checkpoint is kept
}

TEST(TrainerRequeue, AStopWithoutTheWarningIsAPlainStop) {
    TempDir dir;
    std::atomic<bool> stop{false}, warning{false};
    bool called = false;
    Trainer trainer(tinyRun(1000), dir.path(), false);
    RequeueSignal r;
    r.signal = &warning;
    r.requeue = [&] { called = true; };
    trainer.setRequeue(r);
    stop = true;
    EXPECT_EQ(trainer.run(stop), 0);
    EXPECT_FALSE(called);
    EXPECT_FALSE(trainer.requeued());
    EXPECT_EQ(readEvents(dir / "events.jsonl").back()["state"], "stopped");
}
