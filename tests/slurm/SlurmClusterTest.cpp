// The test cluster itself (tests/support/SlurmCluster): up in a few seconds on its own ports and
// folders, runs an interactive 2-task step and a batch job to COMPLETED, and leaves no process of
// its own behind when it goes.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "support/SlurmCluster.h"
#include "support/SshdFixture.h"
#include "support/TempDir.h"

using namespace streetgan::test;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST(SlurmCluster, StartsRunsAStepAndABatchJobAndStopsItsDaemons) {
    if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
    TempDir tmp;
    pid_t daemons[3] = {};
    {
        const auto t0 = std::chrono::steady_clock::now();
        SlurmCluster::Options options;
        options.cpus = 2;
        SlurmCluster cluster(tmp.path().string(), options);
        std::cout << "cluster up in " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
        daemons[0] = cluster.mungedPid();
        daemons[1] = cluster.slurmctldPid();
        daemons[2] = cluster.slurmdPid();
        for (pid_t p : daemons) EXPECT_EQ(::kill(p, 0), 0);

        // An interactive step of two tasks on the one node.
        const auto step = cluster.run("srun -n 2 hostname");
        ASSERT_EQ(step.code, 0) << step.output << cluster.logs();
        EXPECT_EQ(step.output, cluster.nodeName() + "\n" + cluster.nodeName() + "\n");

        // A batch job to COMPLETED, with its output where it asked.
        const std::string out = tmp / "wrap-%j.out";
        const std::string id = cluster.submit("--output=" + out + " --wrap 'echo \"hello from $SLURM_JOB_ID on $SLURM_JOB_NODELIST\"'");
        ASSERT_TRUE(cluster.waitForJobState(id, "COMPLETED")) << cluster.describe(id);
        EXPECT_EQ(cluster.job(id)["ExitCode"], "0:0");
        EXPECT_EQ(slurp(tmp / ("wrap-" + id + ".out")), "hello from " + id + " on " + cluster.nodeName() + "\n");

        // A job that fails ends FAILED, and waitForJobState stops waiting at once.
        const std::string bad = cluster.submit("--output=/dev/null --wrap 'exit 3'");
        const auto w0 = std::chrono::steady_clock::now();
        EXPECT_FALSE(cluster.waitForJobState(bad, "COMPLETED"));
        EXPECT_LT(std::chrono::steady_clock::now() - w0, std::chrono::seconds(60));
        EXPECT_EQ(cluster.job(bad)["JobState"], "FAILED");
        EXPECT_EQ(cluster.job(bad)["ExitCode"], "3:0");

        // A job still running when the cluster goes is ended with it.
        const std::string running = cluster.submit("--output=/dev/null --wrap 'sleep 600'");
        ASSERT_TRUE(cluster.waitForJobState(running, "RUNNING")) << cluster.describe(running);
    }
    for (pid_t p : daemons) EXPECT_NE(::kill(p, 0), 0) << "daemon " << p << " outlived the cluster";
    // Nothing with this cluster's slurm.conf in its environment is left (slurmstepd, the sleep).
    const std::string mark = "SLURM_CONF=" + (tmp / "slurm.conf");
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::string env = slurp(entry.path().string() + "/environ");
        EXPECT_EQ(env.find(mark + std::string(1, '\0')), std::string::npos) << "process " << name << " of the cluster is left";
    }
}

TEST(SlurmCluster, TwoClustersRunSideBySide) {
    if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
    TempDir a, b;
    SlurmCluster one(a.path().string());
    SlurmCluster::Options options;
    options.maxTime = "1";
    options.secondPartition = "long";
    SlurmCluster two(b.path().string(), options);
    const std::string first = one.submit("--job-name=one --output=/dev/null --wrap true");
    const std::string second = two.submit("--job-name=two --output=/dev/null -p long --wrap true");
    EXPECT_TRUE(one.waitForJobState(first, "COMPLETED")) << one.describe(first);
    EXPECT_TRUE(two.waitForJobState(second, "COMPLETED")) << two.describe(second);
    // Each its own controller: each knows its own job (their ids start at random, so they differ
    // too, whence different derived rendezvous ports), the partitions differ.
    EXPECT_EQ(one.job(first)["JobName"], "one");
    EXPECT_EQ(two.job(second)["JobName"], "two");
    EXPECT_NE(first, second);
    EXPECT_EQ(one.run("sinfo -h -o %P").output, "debug*\n");
    EXPECT_EQ(two.run("sinfo -h -o '%P %l' | sort").output, "debug* 1:00\nlong infinite\n");
    // A job over the partition's time limit waits, and says why.
    const std::string over = two.submit("--output=/dev/null -p debug --time=5 --wrap true");
    ASSERT_TRUE(two.waitForJobState(over, "PENDING")) << two.describe(over);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (two.job(over)["Reason"] != "PartitionTimeLimit" && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(two.job(over)["Reason"], "PartitionTimeLimit") << two.describe(over);
}

// The cluster as a login node: an ssh session of the test sshd (SetEnv SLURM_CONF) reaches it
// with the plain client commands, as the app's Slurm launcher does.
TEST(SlurmCluster, ReachedThroughTheTestSshdAsALoginNode) {
    if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
    TempDir tmp;
    std::filesystem::create_directories(tmp / "slurm");
    std::filesystem::create_directories(tmp / "sshd");
    SlurmCluster cluster(tmp / "slurm");
    SshdFixture::generateKey(tmp / "id");
    std::filesystem::copy_file(tmp / "id.pub", tmp / "authorized_keys");
    SshdFixture::Options o;
    o.setEnv = {"SLURM_CONF=" + cluster.slurmConf()};
    SshdFixture sshd(tmp / "sshd", tmp / "authorized_keys", o);
    std::ofstream(tmp / "known_hosts") << sshd.knownHostsLine();
    const std::string ssh = "ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none -o UserKnownHostsFile=" + (tmp / "known_hosts") +
                            " -i " + (tmp / "id") + " -p " + std::to_string(sshd.port()) + " 127.0.0.1 ";
    // Not through cluster.run(): the session's SLURM_CONF is the sshd's, not ours.
    const std::string out = shellOutput("env -u SLURM_CONF " + ssh + "'sinfo -h -o %T; sbatch --parsable --output=/dev/null --wrap true' 2>&1");
    ASSERT_EQ(out.substr(0, 5), "idle\n") << out;
    const std::string id = out.substr(5, out.find('\n', 5) - 5);
    EXPECT_TRUE(cluster.waitForJobState(id, "COMPLETED")) << out << cluster.describe(id);
}
