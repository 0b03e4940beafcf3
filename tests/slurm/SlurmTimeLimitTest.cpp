// A real time limit (label slow, about a minute): a 2-task training job with `--time=1` and
// `--signal=USR1@20` gets Slurm's warning from slurmctld itself (Slurm sends it up to a minute
// early: it looks at time limits every 30 s or so), checkpoints, requeues itself, and the requeued
// job resumes from that checkpoint with no gap and no duplicate step. The run is far from its
// total; once the resumed job has trained a few steps the test cancels it (the trainer stops
// with a checkpoint, as on any SIGTERM).
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "slurm/SlurmJobSupport.h"
#include "support/RunProbe.h"
#include "support/SlurmCluster.h"
#include "support/TempDir.h"

using namespace streetgan::test;
using nlohmann::json;

TEST(TrainerOnSlurmTimeLimit, TheTimeLimitWarningRequeuesAndTheJobResumes) {
    for (const char* tool : {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/srun"})
        if (::access(tool, X_OK) != 0) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
    TempDir tmp;
    const std::string run = tmp / "run";
    std::filesystem::create_directories(tmp / "cluster");
    std::filesystem::create_directories(run);
    SlurmCluster::Options o;
    o.cpus = 2;
    SlurmCluster cluster(tmp / "cluster", o);

    const std::string script =
        writeJobScript(run, 2, "train --run-dir " + CliRunner::quote(run) + " --resume " + tinyTrainArgs(1000000, 100000), {"--time=1", "--signal=USR1@20"});
    const std::string id = cluster.submit(CliRunner::quote(script));
    const std::string out = run + "/slurm-" + id + ".out";
    const auto requeuedStep = [&]() -> int64_t {
        for (const json& e : readEvents(run))
            if (e.value("kind", "") == "status" && e.value("state", "") == "requeued") return e.value("step", int64_t{-1});
        return -1;
    };
    ASSERT_TRUE(waitUntil([&] { return requeuedStep() > 0; }, 180)) << cluster.describe(id) << CliRunner::slurp(out);
    const int64_t at = requeuedStep();
    ASSERT_TRUE(waitUntil([&] { return lastStep(run) >= at + 3; }, 180)) << cluster.describe(id) << CliRunner::slurp(out);
    EXPECT_EQ(cluster.job(id)["Restarts"], "1");

    ASSERT_EQ(cluster.run("scancel " + id).code, 0);
    ASSERT_TRUE(cluster.waitForJobState(id, "CANCELLED", std::chrono::seconds(120))) << cluster.describe(id);
    // The resumed trainer stopped at a step of its own (or, had the second warning come first,
    // was requeued again); either way one series of steps.
    ASSERT_TRUE(waitUntil(
        [&] {
            const auto s = statuses(run);
            return !s.empty() && (s.back() == "stopped" || s.back() == "requeued");
        },
        60))
        << CliRunner::slurp(out);
    const auto s = statuses(run);
    ASSERT_GE(s.size(), 4u);
    EXPECT_EQ(std::vector<std::string>(s.begin(), s.begin() + 3), (std::vector<std::string>{"running", "requeued", "running"})) << statusAndErrors(run);
    expectContinuousSteps(run, lastStep(run));
    for (const json& e : readEvents(run))
        if (e.value("kind", "") == "status" && e.value("state", "") == "requeued") {
            EXPECT_EQ(e.value("reason", ""), "time limit") << e.dump();
        }
    const json runJson = json::parse(CliRunner::slurp(run + "/run.json"));
    ASSERT_GE(runJson.at("resumes").size(), 1u) << runJson.dump();
    EXPECT_EQ(runJson.at("resumes")[0].at("step"), at);
}
