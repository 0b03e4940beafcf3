// The submission and the queue over SSH, as the app uses them: the one-node test cluster reached
// as a login node through the test sshd (SetEnv SLURM_CONF), with SshShell. A tiny run submitted
// (job.sbatch and slurm.json written by the remote shell), followed to finished through squeue and
// listed so; a run queued behind an exclusive job (Slurm's reason), cancelled, and not cancelled
// twice; a partition Slurm refuses, named with the host; no sbatch on the host's PATH.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/follow/RunStatus.h"
#include "base/launch/SshShell.h"
#include "base/launch/TrainerCommandLine.h"
#include "base/remote/SshSession.h"
#include "base/slurm/SlurmJobScript.h"
#include "base/slurm/SlurmQueue.h"
#include "base/slurm/SlurmRunStates.h"
#include "base/slurm/SlurmSubmission.h"
#include "base/util/Errors.h"
#include "support/ErrorText.h"
#include "support/RemoteTestBase.h"
#include "support/SlurmCluster.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {

// The test sshd as the cluster's login node: its sessions have the cluster's SLURM_CONF (and
// `path`, when given, as their PATH).
class SlurmOverSsh : public RemoteTest {
protected:
    void startCluster(const std::string& path = {}) {
        std::filesystem::create_directories(tmp / "slurm");
        std::filesystem::create_directories(tmp / "login");
        std::filesystem::create_directories(tmp / "runs");
        cluster = std::make_unique<SlurmCluster>(tmp / "slurm");
        SshdFixture::Options o;
        o.setEnv = {"SLURM_CONF=" + cluster->slurmConf()};
        if (!path.empty()) o.setEnv.push_back("PATH=" + path);
        target.reset();
        target = std::make_unique<SshdFixture>(tmp / "login", authorizedKeys(), o);
        std::ofstream(knownHosts()) << target->knownHostsLine();
        session = SshSession::connect(options());
        shell = std::make_unique<SshShell>(*session);
    }
    SlurmJobSpec spec(const std::string& name, int steps) const {
        SlurmJobSpec s;
        s.runDir = tmp / ("runs/" + name);
        s.command =
            TrainerCommandLine(STREETGAN_TRAINER)
                .slurmTrain(s.runDir, {"--preset", "tiny-32", "--steps", std::to_string(steps), "--batch", "4", "--synthetic-images", "32", "--device", "cpu"});
        return s;
    }
    SlurmJobState stateOf(const std::string& jobId) {
        const auto states = SlurmQueue(*shell).states({jobId});
        const auto it = states.find(jobId);
        return it == states.end() ? SlurmJobState{} : it->second;
    }

    std::unique_ptr<SlurmCluster> cluster;
    std::unique_ptr<SshSession> session;
    std::unique_ptr<SshShell> shell;
};

}  // namespace

TEST_F(SlurmOverSsh, SubmitsFollowsAndListsARunToFinished) {
    if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
    startCluster();
    const SlurmJobSpec s = spec("tiny", 4);
    const SlurmJobRecord record = SlurmSubmission(*shell).submit(s, 1796000000);
    EXPECT_TRUE(SlurmJobRecord::isJobId(record.jobId));
    EXPECT_EQ(record.cluster, "streetgan-test");
    EXPECT_EQ(slurp(s.runDir + "/job.sbatch"), SlurmJobScript::text(s));
    const auto back = SlurmJobRecord::read(s.runDir);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->toJson(), record.toJson());

    ASSERT_TRUE(waitFor([&] { return stateOf(record.jobId).state == "finished"; }, 180)) << cluster->describe(record.jobId);
    RunInfo info = RunStatus::read(s.runDir);
    EXPECT_EQ(SlurmRunStates::apply({&info}, *shell), "");
    EXPECT_EQ(info.state, "finished");
    EXPECT_EQ(info.slurmJob, record.jobId);
    EXPECT_EQ(info.step, 4);
}

TEST_F(SlurmOverSsh, QueuedBehindAnExclusiveJobCancelledOnceAndRefusalsNameTheHost) {
    if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
    startCluster();
    const std::string blocker = cluster->submit("--exclusive --output=/dev/null --wrap 'sleep 600'");
    ASSERT_TRUE(cluster->waitForJobState(blocker, "RUNNING")) << cluster->describe(blocker);

    const SlurmJobRecord queued = SlurmSubmission(*shell).submit(spec("waits", 4), 1796000000);
    SlurmJobState s;
    ASSERT_TRUE(waitFor([&] { return (s = stateOf(queued.jobId)).state == "queued" && !s.reason.empty(); })) << s.slurmState << " " << s.reason;
    EXPECT_EQ(s.reason, "Resources");
    EXPECT_TRUE(SlurmQueue(*shell).cancel(queued.jobId));
    ASSERT_TRUE(waitFor([&] { return stateOf(queued.jobId).state == "cancelled"; })) << cluster->describe(queued.jobId);
    EXPECT_FALSE(SlurmQueue(*shell).cancel(queued.jobId));  // ended: nothing to cancel
    EXPECT_FALSE(SlurmQueue(*shell).cancel("999999"));      // never known

    SlurmJobSpec bad = spec("nopart", 4);
    bad.partition = "nope";
    EXPECT_EQ(messageOf<ConfigError>([&] { SlurmSubmission(*shell).submit(bad, 0); }),
              "Slurm on " + shell->label() + " refused the job of " + bad.runDir +
                  ": Invalid partition name specified (--partition nope; `sinfo -s` lists the partitions)");
    EXPECT_FALSE(exists(bad.runDir));
    const SlurmJobSpec again = spec("waits", 4);
    EXPECT_EQ(messageOf<ConfigError>([&] { SlurmSubmission(*shell).submit(again, 0); }),
              "the run directory " + again.runDir + " exists already on " + shell->label() + ": choose another --name");
}

TEST_F(SlurmOverSsh, NoSbatchOnTheHostIsOneLine) {
    if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
    // The session's PATH has the shell's tools but no Slurm.
    const std::string bin = tmp / "bin";
    std::filesystem::create_directories(bin);
    for (const char* tool : {"sh", "mkdir", "cat", "mv", "rm", "rmdir"}) std::filesystem::create_symlink(std::string("/bin/") + tool, bin + "/" + tool);
    startCluster(bin);
    const SlurmJobSpec s = spec("nosbatch", 4);
    const std::string message = messageOf<ConfigError>([&] { SlurmSubmission(*shell).submit(s, 0); });
    EXPECT_EQ(message.rfind("there is no sbatch on " + shell->label() + "'s PATH: is it a Slurm login node?", 0), 0u) << message;
    EXPECT_FALSE(exists(s.runDir));
    EXPECT_EQ(messageOf<ConfigError>([&] { SlurmQueue(*shell).states({"1"}); }).rfind("there is no squeue on " + shell->label() + "'s PATH", 0), 0u);
}
