// Distributed training on c10d with Gloo on 127.0.0.1, end to end with real processes:
// gradient averaging (dist_worker), parameter agreement, a dead or hung rank, resume with another
// world size, and `streetgan-trainer launch` (run directory, failure, SIGTERM, control).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/CliRunner.h"
#include "support/RankProcess.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

bool waitFor(const std::function<bool()>& pred, double seconds) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < end) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return pred();
}

bool hasMetrics(const std::string& runDir) {
    for (const auto& e : readEvents(runDir))
        if (e.value("kind", "") == "metrics") return true;
    return false;
}

// A small, fast run: tiny-32 on synthetic streets, metrics every 2 steps, short peer timeout.
std::vector<std::string> trainArgs(const std::string& runDir, const std::string& steps) {
    return {"train", "--run-dir",        runDir, "--preset",       "tiny-32", "--batch",        "8", "--synthetic-images",
            "512",   "--steps",          steps,  "--log-every",    "2",       "--sample-every", "0", "--checkpoint-every",
            "0",     "--loader-threads", "1",    "--dist-timeout", "5"};
}

std::vector<std::string> withTrainer(std::vector<std::string> args) {
    args.insert(args.begin(), STREETGAN_TRAINER);
    return args;
}

std::vector<std::string> launchArgs(const std::vector<std::string>& extra, const std::vector<std::string>& train) {
    std::vector<std::string> a = {STREETGAN_TRAINER, "launch", "--nproc", "2"};
    a.insert(a.end(), extra.begin(), extra.end());
    a.push_back("--");
    a.insert(a.end(), train.begin(), train.end());
    return a;
}

// Two ranks of `train` started directly with torchrun's environment (no launcher).
std::vector<std::unique_ptr<RankProcess>> startRanks(const TempDir& tmp, const std::vector<std::string>& train) {
    const int port = RankProcess::freePort();
    std::vector<std::unique_ptr<RankProcess>> ranks;
    for (int r = 0; r < 2; ++r)
        ranks.push_back(std::make_unique<RankProcess>(withTrainer(train), RankProcess::rankEnv(r, 2, port), tmp / ("rank" + std::to_string(r))));
    return ranks;
}

}  // namespace

TEST(DistGradient, AveragedGradientsOfDAndGEqualTheWholeBatchGradients) {
    TempDir tmp;
    const int port = RankProcess::freePort();
    std::vector<std::unique_ptr<RankProcess>> ranks;
    for (int r = 0; r < 2; ++r)
        ranks.push_back(std::make_unique<RankProcess>(std::vector<std::string>{STREETGAN_DIST_WORKER, "grad", tmp / ("grad" + std::to_string(r) + ".json")},
                                                      RankProcess::rankEnv(r, 2, port), tmp / ("w" + std::to_string(r))));
    for (int r = 0; r < 2; ++r) {
        ASSERT_EQ(ranks[r]->wait(60), 0) << ranks[r]->err();
        const json j = json::parse(RankProcess::slurp(tmp / ("grad" + std::to_string(r) + ".json")));
        for (const char* m : {"d", "g"}) {
            const std::string k = m;
            EXPECT_GT(j[k + "_buckets"].get<int>(), 1) << k << ": several buckets, launched in order";
            EXPECT_GT(j[k + "_max_grad"].get<double>(), 1e-4) << k;
            EXPECT_LT(j[k + "_relative"].get<double>(), 1e-5) << k << ": " << j.dump();
        }
    }
}

TEST(DistCheckCommand, TwoRanksUnderLaunchAgreeWithTheWholeBatchAndPrintOneLineEach) {
    TempDir tmp;
    RankProcess launch(launchArgs({}, {"dist-check", "--preset", "tiny-32", "--batch", "4", "--device", "cpu"}), {}, tmp / "launch");
    ASSERT_EQ(launch.wait(180), 0) << launch.err();
    const std::string out = launch.out();
    std::set<int> ranks;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        const json j = json::parse(line);
        ranks.insert(j.at("rank").get<int>());
        EXPECT_EQ(j.at("world_size"), 2);
        EXPECT_EQ(j.at("backend"), "gloo");
        EXPECT_TRUE(j.at("ok").get<bool>()) << line;
        EXPECT_LT(j.at("d_relative").get<double>(), j.at("tolerance").get<double>());
        EXPECT_GT(j.at("g_max_grad").get<double>(), 0.0) << "the check compared real gradients";
    }
    EXPECT_EQ(ranks, (std::set<int>{0, 1})) << out;
}

TEST(DistCheckCommand, AloneItFormsAGroupOfOneRank) {
    TempDir tmp;
    const auto r = CliRunner(tmp.path().string()).run({"dist-check", "--preset", "tiny-32", "--batch", "2", "--dist-backend", "gloo"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j.at("world_size"), 1);
    EXPECT_EQ(j.at("backend"), "gloo");
    EXPECT_LE(j.at("d_relative").get<double>(), 1e-6) << "one rank: the average is its own gradient";
    EXPECT_GT(j.at("d_max_grad").get<double>(), 0.0);
}

TEST(DistBackend, NcclOnTheCpuIsRefusedByName) {
    TempDir tmp;
    RankProcess launch(launchArgs({}, {"train", "--run-dir", tmp / "run", "--preset", "tiny-32", "--steps", "2", "--device", "cpu", "--dist-backend", "nccl"}),
                       {}, tmp / "launch");
    const auto code = launch.wait(120);
    ASSERT_TRUE(code.has_value()) << "launch did not exit";
    EXPECT_NE(*code, 0);
    EXPECT_NE(launch.err().find("--dist-backend nccl needs a CUDA device"), std::string::npos) << launch.err();
}

TEST(DistSteps, EveryRankHoldsIdenticalParametersAfterSeveralSteps) {
    TempDir tmp;
    const int port = RankProcess::freePort();
    std::vector<std::unique_ptr<RankProcess>> ranks;
    for (int r = 0; r < 2; ++r)
        ranks.push_back(std::make_unique<RankProcess>(std::vector<std::string>{STREETGAN_DIST_WORKER, "steps", tmp / ("p" + std::to_string(r) + ".bin")},
                                                      RankProcess::rankEnv(r, 2, port), tmp / ("w" + std::to_string(r))));
    for (int r = 0; r < 2; ++r) {
        ASSERT_EQ(ranks[r]->wait(120), 0) << ranks[r]->err();
        EXPECT_GT(json::parse(ranks[r]->out())["moved"].get<double>(), 0.0) << "the steps changed the parameters";
    }
    const std::string p0 = RankProcess::slurp(tmp / "p0.bin"), p1 = RankProcess::slurp(tmp / "p1.bin");
    ASSERT_GT(p0.size(), 100000u);
    EXPECT_TRUE(p0 == p1) << "ranks started from different weights and trained on different shards; they must agree bit for bit";
}

TEST(DistFailure, KilledRankMakesTheOtherExitWithAnErrorWithinTheTimeout) {
    TempDir tmp;
    const std::string run = tmp / "run";
    auto ranks = startRanks(tmp, trainArgs(run, "100000"));
    ASSERT_TRUE(waitFor([&] { return hasMetrics(run); }, 60)) << ranks[0]->err() << ranks[1]->err();
    ranks[1]->signal(SIGKILL);
    // Rank 0 gives up after its collective timeout (5 s here) instead of hanging: a generous
    // deadline, since a busy machine may take longer to notice and exit.
    const auto code = ranks[0]->wait(120);
    ASSERT_TRUE(code.has_value()) << "rank 0 still running 120 s after its peer died";
    EXPECT_NE(*code, 0);
    EXPECT_NE(ranks[0]->err().find("rank 0 of 2"), std::string::npos) << ranks[0]->err();
    EXPECT_NE(ranks[0]->err().find("--resume"), std::string::npos) << ranks[0]->err();
}

TEST(DistFailure, HungRankMakesTheOtherExitWithAnErrorWithinTheTimeout) {
    TempDir tmp;
    const std::string run = tmp / "run";
    auto ranks = startRanks(tmp, trainArgs(run, "100000"));
    ASSERT_TRUE(waitFor([&] { return hasMetrics(run); }, 60)) << ranks[0]->err() << ranks[1]->err();
    ranks[1]->signal(SIGSTOP);  // alive, connections open, never answering
    // The message names the 5 s timeout that ended the wait; a busy machine may take longer to get
    // there, so the deadline here is generous.
    const auto code = ranks[0]->wait(120);
    ASSERT_TRUE(code.has_value()) << "rank 0 hangs with a stopped peer";
    EXPECT_NE(*code, 0);
    EXPECT_NE(ranks[0]->err().find("did not answer within 5 s"), std::string::npos) << ranks[0]->err();
    const auto events = readEvents(run);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().value("state", ""), "failed");
}

TEST(DistResume, TwoRankRunResumesAsOneRank) {
    TempDir tmp;
    const std::string run = tmp / "run";
    RankProcess launch(launchArgs({}, trainArgs(run, "4")), {}, tmp / "launch");
    ASSERT_EQ(launch.wait(120), 0) << launch.err();
    ASSERT_TRUE(fs::exists(run + "/checkpoints/checkpoint_0.pt"));
    CliRunner cli(tmp.path().string());
    auto args = trainArgs(run, "6");
    args.push_back("--resume");
    const auto r = cli.run(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const json runJson = json::parse(RankProcess::slurp(run + "/run.json"));
    EXPECT_EQ(runJson["world_size"], 1);
    ASSERT_EQ(runJson["resumes"].size(), 1u);
    EXPECT_EQ(runJson["resumes"][0]["step"], 4);
    const auto events = readEvents(run);
    EXPECT_EQ(events.back().value("state", ""), "finished");
    EXPECT_EQ(events.back().value("step", 0), 6);
}

TEST(DistLaunch, TwoRanksWriteOneRunDirectoryThroughRankZero) {
    TempDir tmp;
    const std::string run = tmp / "run";
    RankProcess launch(launchArgs({}, trainArgs(run, "6")), {}, tmp / "launch");
    ASSERT_EQ(launch.wait(120), 0) << launch.err();
    const json runJson = json::parse(RankProcess::slurp(run + "/run.json"));
    EXPECT_EQ(runJson["world_size"], 2);
    EXPECT_EQ(runJson["distributed"]["backend"], "gloo");
    EXPECT_EQ(runJson["distributed"]["global_batch"], 16);
    EXPECT_EQ(runJson["steps_per_epoch"], 512 / 16);
    std::set<int64_t> steps;
    int running = 0, finished = 0;
    for (const auto& e : readEvents(run)) {
        if (e.value("kind", "") == "metrics") {
            EXPECT_TRUE(steps.insert(e["step"].get<int64_t>()).second) << "one metrics event per step: only rank 0 writes";
            EXPECT_EQ(e["world_size"], 2);
            EXPECT_GT(e["img_per_s"].get<double>(), 0.0);
        }
        running += e.value("kind", "") == "status" && e.value("state", "") == "running";
        finished += e.value("state", "") == "finished";
    }
    EXPECT_EQ(steps, (std::set<int64_t>{2, 4, 6}));
    EXPECT_EQ(running, 1);
    EXPECT_EQ(finished, 1);
    EXPECT_TRUE(fs::exists(run + "/checkpoints/checkpoint_0.pt"));
    EXPECT_TRUE(fs::exists(run + "/samples/step_6.png"));
}

TEST(DistLaunch, FailingRankFailsLaunchWithThatRanksErrorLine) {
    TempDir tmp;
    const std::string run = tmp / "run";
    fs::create_directories(run);
    // Hold the run lock as a live trainer would: rank 0 refuses the run directory, rank 1 is
    // left waiting at the rendezvous and must be stopped by launch.
    const int fd = ::open((run + "/trainer.lock").c_str(), O_RDWR | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    ASSERT_EQ(::fcntl(fd, F_OFD_SETLK, &fl), 0);
    RankProcess launch(launchArgs({"--grace", "2"}, trainArgs(run, "6")), {}, tmp / "launch");
    const auto code = launch.wait(60);
    ::close(fd);
    ASSERT_TRUE(code.has_value());
    EXPECT_EQ(*code, 5) << launch.err();  // IoError's exit code, passed through
    EXPECT_NE(launch.err().find("streetgan-trainer: rank 0 failed (exit 5): streetgan-trainer: run directory"), std::string::npos) << launch.err();
    EXPECT_NE(launch.err().find("already has a live trainer"), std::string::npos) << launch.err();
}

TEST(DistLaunch, SigtermStopsAllRanksWithAFinalCheckpoint) {
    TempDir tmp;
    const std::string run = tmp / "run";
    RankProcess launch(launchArgs({}, trainArgs(run, "100000")), {}, tmp / "launch");
    ASSERT_TRUE(waitFor([&] { return hasMetrics(run); }, 60)) << launch.err();
    launch.signal(SIGTERM);
    const auto code = launch.wait(30);
    ASSERT_TRUE(code.has_value()) << "launch did not stop within 30 s of SIGTERM";
    EXPECT_EQ(*code, 130) << launch.err();
    const auto events = readEvents(run);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().value("state", ""), "stopped");
    const int64_t stoppedAt = events.back().value("step", int64_t{0});
    EXPECT_GT(stoppedAt, 0);
    bool finalCheckpoint = false;
    for (const auto& e : events) finalCheckpoint = finalCheckpoint || (e.value("kind", "") == "checkpoint" && e.value("step", int64_t{-1}) == stoppedAt);
    EXPECT_TRUE(finalCheckpoint);
    EXPECT_TRUE(fs::exists(run + "/checkpoints/checkpoint_0.pt"));
    EXPECT_EQ(launch.err().find("failed"), std::string::npos) << launch.err();
}

TEST(DistLaunch, ControlCommandsTakeEffectOnEveryRank) {
    TempDir tmp;
    const std::string run = tmp / "run";
    RankProcess launch(launchArgs({}, trainArgs(run, "100000")), {}, tmp / "launch");
    ASSERT_TRUE(waitFor([&] { return hasMetrics(run) && fs::exists(run + "/control.sock"); }, 60)) << launch.err();
    CliRunner cli(tmp.path().string());
    ASSERT_EQ(cli.run({"control", run, "set-lr", "0.001"}).code, 0);
    ASSERT_TRUE(waitFor(
        [&] {
            for (const auto& e : readEvents(run))
                if (e.value("kind", "") == "metrics" && e.value("lr", 0.0) == 0.001) return true;
            return false;
        },
        60));
    ASSERT_EQ(cli.run({"control", run, "stop"}).code, 0);
    // Both ranks leave the loop at the same step: rank 1 keeps no collective waiting, launch exits 0.
    ASSERT_EQ(launch.wait(30), 0) << launch.err();
    EXPECT_EQ(readEvents(run).back().value("state", ""), "stopped");
}
