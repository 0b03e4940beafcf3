// SlurmRunLauncher against a real one-node Slurm cluster (tests/support/SlurmCluster): through a
// LocalShell (this computer as the login node, SLURM_CONF in its environment) and through an
// SshShell on the test sshd (SetEnv SLURM_CONF: the cluster reached as a login node over SSH, as the
// app does). A tiny run submitted and finished as Slurm says, a run queued behind another job with
// Slurm's reason and cancelled while queued, a running one read through the trainer and cancelled,
// a relative run folder taken from the login node's home, and refusals as one LaunchError line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "base/launch/LaunchError.h"
#include "base/launch/LocalShell.h"
#include "base/launch/SshShell.h"
#include "base/remote/SshSession.h"
#include "base/slurm/SlurmRunLauncher.h"
#include "support/RemoteTestBase.h"
#include "support/SlurmCluster.h"

using namespace streetgan;
using namespace streetgan::test;
using Clock = std::chrono::steady_clock;

namespace {

// Polls `done` every 100 ms until it holds or `deadline` passes (a busy 2-core machine: generous).
bool waitLong(const std::function<bool()>& done, std::chrono::seconds deadline = std::chrono::seconds(180)) {
    const auto end = Clock::now() + deadline;
    while (Clock::now() < end) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
}

std::vector<std::string> tinyRun(const std::string& runDir, int steps) {
    return {"--run-dir",          runDir, "--preset", "tiny-32", "--steps", std::to_string(steps), "--batch", "4", "--log-every", "1",
            "--synthetic-images", "32",   "--device", "cpu"};
}

// A run that goes on until it is cancelled: epochs of 100000 images and no sample grids, so that
// it writes no epoch-end checkpoint or grid while the test runs (a test killed mid-way must not
// leave a run filling the disk).
std::vector<std::string> endlessRun(const std::string& runDir) {
    auto args = tinyRun(runDir, 1000000);
    args[std::find(args.begin(), args.end(), "--synthetic-images") - args.begin() + 1] = "100000";
    args.insert(args.end(), {"--sample-every", "0"});
    return args;
}

SlurmJobSpec oneTask() {
    SlurmJobSpec job;
    job.timeLimit = "00:10:00";
    return job;
}

// A one-CPU cluster (a second job waits for the first) and a login node over the test sshd.
class SlurmRunLauncherTest : public RemoteTest {
protected:
    void SetUp() override {
        if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
        RemoteTest::SetUp();
        std::filesystem::create_directories(tmp / "c");
        std::filesystem::create_directories(tmp / "home");
        std::filesystem::create_directories(tmp / "login");
        SlurmCluster::Options c;
        c.cpus = 1;
        cluster = std::make_unique<SlurmCluster>(tmp / "c", c);
        target.reset();
        SshdFixture::Options o;
        o.home = tmp / "home";
        o.setEnv = {"SLURM_CONF=" + cluster->slurmConf()};
        target = std::make_unique<SshdFixture>(tmp / "login", authorizedKeys(), o);
        std::ofstream(knownHosts()) << target->knownHostsLine();
    }
    std::unique_ptr<SlurmRunLauncher> local(const SlurmJobSpec& job = oneTask()) const {
        return std::make_unique<SlurmRunLauncher>(
            std::make_unique<LocalShell>(std::vector<std::pair<std::string, std::string>>{{"SLURM_CONF", cluster->slurmConf()}}),
            TrainerCommandLine(STREETGAN_TRAINER), job);
    }
    // Waits until the launcher reports `state`; the last state seen goes to `seen`.
    static bool waitForState(RunLauncher& l, const std::string& run, const std::string& state, RunLauncher::State& seen) {
        return waitLong([&] {
            seen = l.state(run);
            return seen.state == state;
        });
    }
    std::unique_ptr<SlurmCluster> cluster;
};

}  // namespace

TEST_F(SlurmRunLauncherTest, LocalShellSubmitsRunsReadsSlurmsStatesAndCancels) {
    auto launcher = local();
    EXPECT_EQ(launcher->label(), "Slurm on this computer");
    const std::string root = tmp / "runs";
    const std::string run = launcher->start(tinyRun(root + "/tiny", 4));
    EXPECT_EQ(run, root + "/tiny");
    EXPECT_TRUE(std::filesystem::exists(run + "/job.sbatch"));
    EXPECT_TRUE(std::filesystem::exists(run + "/slurm.json"));
    RunLauncher::State s;
    ASSERT_TRUE(waitForState(*launcher, run, "finished", s)) << s.state << " " << s.reason << cluster->logs();
    // The trainer says finished a moment before its job ends; then the exit code is Slurm's.
    ASSERT_TRUE(waitLong([&] { return (s = launcher->state(run)).exitCode.has_value(); })) << s.state;
    EXPECT_EQ(s.state, "finished");
    EXPECT_EQ(*s.exitCode, 0);

    // The node held by another job: the run waits queued with Slurm's reason; stop cancels it.
    const std::string blocker = cluster->submit("--output=/dev/null --wrap 'sleep 600'");
    ASSERT_TRUE(cluster->waitForJobState(blocker, "RUNNING")) << cluster->describe(blocker);
    const std::string waits = launcher->start(tinyRun(root + "/waits", 4));
    ASSERT_TRUE(waitLong([&] {
        s = launcher->state(waits);
        return s.state == "queued" && !s.reason.empty();
    })) << s.state;
    EXPECT_EQ(s.reason, "Resources");
    launcher->stop(waits);
    ASSERT_TRUE(waitForState(*launcher, waits, "cancelled", s)) << s.state;
    EXPECT_FALSE(std::filesystem::exists(waits + "/events.jsonl"));  // its trainer never ran
    try {
        launcher->stop(waits);
        ADD_FAILURE() << "a cancelled job was stopped again";
    } catch (const LaunchError& e) {
        EXPECT_NE(std::string(e.what()).find("has already ended: nothing to stop"), std::string::npos) << e.what();
    }
    EXPECT_THROW(launcher->state(root + "/nothing"), LaunchError);
}

TEST_F(SlurmRunLauncherTest, RefusalsAreOneLineAndLeaveNoRun) {
    SlurmJobSpec job = oneTask();
    job.partition = "nosuchpartition";
    auto launcher = local(job);
    const std::string root = tmp / "runs";
    try {
        launcher->start(tinyRun(root + "/refused", 2));
        ADD_FAILURE() << "Slurm took a job for an unknown partition";
    } catch (const LaunchError& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        EXPECT_NE(m.find("refused"), std::string::npos) << m;
        EXPECT_NE(m.find("--partition nosuchpartition"), std::string::npos) << m;
    }
    EXPECT_FALSE(std::filesystem::exists(root + "/refused"));
    SlurmJobSpec bad = oneTask();
    bad.timeLimit = "soon";
    EXPECT_THROW(local(bad)->start(tinyRun(root + "/bad", 2)), LaunchError);
    EXPECT_THROW(local()->start({"--steps", "2"}), LaunchError);  // no --run-dir
}

TEST_F(SlurmRunLauncherTest, ALoginNodeOverSshRunsAndCancelsARelativeRun) {
    auto session = SshSession::connect(options());
    SlurmRunLauncher launcher(std::make_unique<SshShell>(*session), TrainerCommandLine(STREETGAN_TRAINER), oneTask());
    EXPECT_EQ(launcher.label(), "Slurm on " + session->label());
    // Relative: from the login node's home (the sshd's SetEnv HOME), made absolute for the nodes.
    const std::string run = launcher.start(endlessRun("runs/long"));
    EXPECT_EQ(run, std::filesystem::canonical(tmp / "home").string() + "/runs/long");
    RunLauncher::State s;
    // Running: the trainer's own state through `ls` on the login node, once it wrote one.
    ASSERT_TRUE(waitLong([&] { return std::filesystem::exists(run + "/events.jsonl") && (s = launcher.state("runs/long")).state == "running"; }))
        << s.state << " " << s.reason << cluster->logs();
    launcher.stop("runs/long");
    ASSERT_TRUE(waitForState(launcher, run, "cancelled", s)) << s.state;
}
