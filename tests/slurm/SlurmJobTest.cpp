// The trainer as a Slurm job on a real one-node cluster (tests/support/SlurmCluster), issue 45
// item 2: each task of `srun -n 2` finds its rank, rank 0's address and a port in Slurm's
// variables (no torchrun variable is set), the two form a Gloo group whose gradients agree with
// one process (dist-check), a tiny run writes one run directory (rank 0 alone writes events), and
// SIGUSR1 (the time-limit warning; here sent at once with scancel) checkpoints, requeues the job
// and the requeued job resumes with no gap and no duplicate step. Bad input: a rendezvous port in
// use, malformed SLURM_* values, one line each.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>

#include "slurm/SlurmJobSupport.h"
#include "support/RunProbe.h"
#include "support/SlurmCluster.h"
#include "support/TempDir.h"

using namespace streetgan::test;
using nlohmann::json;

namespace {

// The JSON objects among an output file's lines.
std::vector<json> jsonLines(const std::string& text) {
    std::vector<json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty() && line[0] == '{')
            if (json j = json::parse(line, nullptr, false); j.is_object()) out.push_back(j);
    return out;
}

class TrainerOnSlurm : public ::testing::Test {
protected:
    void SetUp() override {
        if (!streetgan::test::SlurmCluster::installed()) GTEST_SKIP() << "Slurm (slurm-wlm, munge) is not installed";
        std::filesystem::create_directories(tmp / "cluster");
        std::filesystem::create_directories(run);
        cluster = std::make_unique<SlurmCluster>(tmp / "cluster", clusterOptions());
    }
    virtual SlurmCluster::Options clusterOptions() const {
        SlurmCluster::Options o;
        o.cpus = 2;
        return o;
    }
    std::string output(const std::string& id) const { return CliRunner::slurp(run + "/slurm-" + id + ".out"); }

    // Submits `script` held, takes the port its job id derives (20000 + id % 20000) with a
    // listening socket (`listener`), then lets the job go. Returns the job id.
    std::string submitWithItsPortTaken(const std::string& script, int& listener, int& port) {
        const std::string id = cluster->submit("--hold " + CliRunner::quote(script));
        port = 20000 + std::stoi(id) % 20000;
        listener = ::socket(AF_INET, SOCK_STREAM, 0);
        const int one = 1;
        ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        a.sin_port = htons(static_cast<uint16_t>(port));
        EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << "port " << port << " is taken already";
        EXPECT_EQ(::listen(listener, 16), 0);
        EXPECT_EQ(cluster->run("scontrol release " + id).code, 0);
        return id;
    }

    TempDir tmp;
    const std::string run = tmp / "run";
    std::unique_ptr<SlurmCluster> cluster;
};

}  // namespace

TEST_F(TrainerOnSlurm, DistCheckOfTwoTasksAgreesWithOneProcess) {
    const std::string script = writeJobScript(run, 2, "dist-check --preset tiny-32 --batch 4 --device cpu");
    const std::string id = cluster->submit(CliRunner::quote(script));
    ASSERT_TRUE(cluster->waitForJobState(id, "COMPLETED", std::chrono::seconds(300))) << cluster->describe(id) << output(id);
    const auto lines = jsonLines(output(id));
    ASSERT_EQ(lines.size(), 2u) << output(id);
    std::set<int> ranks;
    for (const json& j : lines) {
        ranks.insert(j.at("rank").get<int>());
        EXPECT_EQ(j.at("world_size"), 2) << j.dump();
        EXPECT_EQ(j.at("backend"), "gloo") << j.dump();
        EXPECT_EQ(j.at("ok"), true) << j.dump();
        EXPECT_GT(j.at("d_max_grad").get<double>(), 0) << j.dump();  // real gradients were compared
    }
    EXPECT_EQ(ranks, (std::set<int>{0, 1}));
}

TEST_F(TrainerOnSlurm, ATinyRunOfTwoTasksWritesOneRunDirectory) {
    const std::string script = writeJobScript(run, 2, "train --run-dir " + CliRunner::quote(run) + " --resume " + tinyTrainArgs(6, 3));
    const std::string id = cluster->submit(CliRunner::quote(script));
    ASSERT_TRUE(cluster->waitForJobState(id, "COMPLETED", std::chrono::seconds(300))) << cluster->describe(id) << output(id);
    // `--resume` of a run with no checkpoint yet started it; rank 0 alone wrote each step once.
    expectContinuousSteps(run, 6);
    for (const json& e : readEvents(run))
        if (e.value("kind", "") == "metrics") {
            EXPECT_EQ(e.value("world_size", 0), 2) << e.dump();
        }
    EXPECT_EQ(statuses(run), (std::vector<std::string>{"running", "finished"}));
    const json runJson = json::parse(CliRunner::slurp(run + "/run.json"));
    EXPECT_EQ(runJson.at("world_size"), 2);
    EXPECT_EQ(runJson.at("distributed").at("backend"), "gloo");
    EXPECT_EQ(runJson.at("distributed").at("global_batch"), 8);
    EXPECT_FALSE(runJson.contains("resumes")) << runJson.dump();
}

TEST_F(TrainerOnSlurm, Usr1CheckpointsRequeuesAndTheRequeuedJobResumes) {
    constexpr int64_t kSteps = 120;
    const std::string script = writeJobScript(run, 2, "train --run-dir " + CliRunner::quote(run) + " --resume " + tinyTrainArgs(kSteps, 50));
    const std::string id = cluster->submit(CliRunner::quote(script));
    ASSERT_TRUE(waitUntil([&] { return lastStep(run) >= 5; }, 300)) << cluster->describe(id) << output(id);
    // Slurm's warning before the time limit, now: to every task of the job's steps.
    const auto signal = cluster->run("scancel --signal=USR1 " + id);
    ASSERT_EQ(signal.code, 0) << signal.output;
    ASSERT_TRUE(waitUntil([&] { return !statuses(run).empty() && statuses(run).back() == "requeued"; }, 120)) << cluster->describe(id) << output(id);
    ASSERT_TRUE(cluster->waitForJobState(id, "COMPLETED", std::chrono::seconds(300))) << cluster->describe(id) << output(id);
    EXPECT_EQ(cluster->job(id)["Restarts"], "1");

    // One series of steps over both starts of the job, ending at the total.
    expectContinuousSteps(run, kSteps);
    EXPECT_EQ(statuses(run), (std::vector<std::string>{"running", "requeued", "running", "finished"})) << statusAndErrors(run);
    const auto events = readEvents(run);
    int64_t requeuedAt = -1, checkpointAt = -1;
    for (const json& e : events) {
        if (e.value("kind", "") == "status" && e.value("state", "") == "requeued") {
            requeuedAt = e.value("step", int64_t{-1});
            EXPECT_EQ(e.value("reason", ""), "time limit") << e.dump();
        }
        if (e.value("kind", "") == "checkpoint" && requeuedAt < 0) checkpointAt = e.value("step", int64_t{-1});
        if (e.value("kind", "") == "status" && e.value("state", "") == "running" && requeuedAt >= 0) {
            EXPECT_NE(e.value("resumed_from", ""), "") << "the requeued job did not resume: " << e.dump();
        }
    }
    EXPECT_GE(requeuedAt, 5);
    EXPECT_LT(requeuedAt, kSteps);
    EXPECT_EQ(checkpointAt, requeuedAt) << "the last checkpoint before the requeue is not of its step";
    const json runJson = json::parse(CliRunner::slurp(run + "/run.json"));
    ASSERT_EQ(runJson.at("resumes").size(), 1u) << runJson.dump();
    EXPECT_EQ(runJson.at("resumes")[0].at("step"), requeuedAt);
    // Both starts wrote to the same output file (--open-mode=append).
    const std::string out = output(id);
    EXPECT_NE(out.find("settings:"), out.rfind("settings:")) << out;
}

// The warning reaching one rank only (rank 1 here: rank 0, which requeues, never saw it) still
// stops both at one step and requeues: the per-step agreement carries it.
TEST_F(TrainerOnSlurm, AWarningToOneRankRequeuesTheWholeJob) {
    constexpr int64_t kSteps = 60;
    const std::string script = writeJobScript(run, 2, "train --run-dir " + CliRunner::quote(run) + " --resume " + tinyTrainArgs(kSteps, 1000));
    const std::string id = cluster->submit(CliRunner::quote(script));
    ASSERT_TRUE(waitUntil([&] { return lastStep(run) >= 3; }, 300)) << cluster->describe(id) << output(id);
    // Rank 1's process: the trainer whose environment says SLURM_PROCID=1 in this job.
    pid_t rank1 = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string env = CliRunner::slurp(entry.path().string() + "/environ");
        const std::string nul(1, '\0');
        if ((nul + env).find(nul + "SLURM_PROCID=1" + nul) != std::string::npos && (nul + env).find(nul + "SLURM_JOB_ID=" + id + nul) != std::string::npos &&
            CliRunner::slurp(entry.path().string() + "/cmdline").find("streetgan-trainer") != std::string::npos)
            rank1 = static_cast<pid_t>(std::stoi(entry.path().filename().string()));
    }
    ASSERT_GT(rank1, 0) << "rank 1's process not found";
    ASSERT_EQ(::kill(rank1, SIGUSR1), 0);
    ASSERT_TRUE(cluster->waitForJobState(id, "COMPLETED", std::chrono::seconds(300))) << cluster->describe(id) << output(id);
    EXPECT_EQ(cluster->job(id)["Restarts"], "1");
    EXPECT_EQ(statuses(run), (std::vector<std::string>{"running", "requeued", "running", "finished"})) << statusAndErrors(run);
    expectContinuousSteps(run, kSteps);
}

TEST_F(TrainerOnSlurm, ARequeueThatSlurmRefusesFailsTheRunWithOneLine) {
    // --no-requeue on sbatch's command line wins over the script's --requeue.
    const std::string script = writeJobScript(run, 2, "train --run-dir " + CliRunner::quote(run) + " --resume " + tinyTrainArgs(100000, 100000));
    const std::string id = cluster->submit("--no-requeue " + CliRunner::quote(script));
    ASSERT_TRUE(waitUntil([&] { return lastStep(run) >= 3; }, 300)) << cluster->describe(id) << output(id);
    ASSERT_EQ(cluster->run("scancel --signal=USR1 " + id).code, 0);
    EXPECT_TRUE(cluster->waitForJobState(id, "FAILED", std::chrono::seconds(300))) << cluster->describe(id) << output(id);
    EXPECT_EQ(cluster->job(id)["Restarts"], "0");
    // The run says failed, with the reason, never "requeued"; its checkpoint of that step is there.
    const auto states = statuses(run);
    EXPECT_EQ(states, (std::vector<std::string>{"running", "failed"})) << statusAndErrors(run);
    std::string error;
    int64_t checkpointAt = -1;
    for (const json& e : readEvents(run)) {
        if (e.value("kind", "") == "error") error = e.value("message", "");
        if (e.value("kind", "") == "checkpoint") checkpointAt = e.value("step", int64_t{-1});
    }
    const std::string prefix = "Slurm did not requeue job " + id + " at its time-limit warning (scontrol requeue: ";
    EXPECT_EQ(error.rfind(prefix, 0), 0u) << error;
    EXPECT_NE(error.find("); the run stopped with a checkpoint: resubmit " + run + "/job.sbatch to continue it"), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_EQ(checkpointAt, lastStep(run));  // the step the ranks stopped at
    EXPECT_NE(output(id).find("streetgan-trainer: " + prefix), std::string::npos) << output(id);
}

TEST_F(TrainerOnSlurm, ARendezvousPortInUseFailsTheJobWithOneLine) {
    const std::string script = writeJobScript(run, 2, "train --run-dir " + CliRunner::quote(run) + " --resume " + tinyTrainArgs(6, 3));
    int listener = -1, port = 0;
    const std::string id = submitWithItsPortTaken(script, listener, port);
    EXPECT_TRUE(cluster->waitForJobState(id, "FAILED", std::chrono::seconds(300))) << cluster->describe(id) << output(id);
    ::close(listener);
    const std::string out = output(id);
    const std::string line = "streetgan-trainer: distributed rendezvous port " + std::to_string(port) + " on " + cluster->nodeName() +
                             " is in use by another program or job, so rank 0 of 2 cannot host the rendezvous there: export MASTER_PORT=<a free "
                             "port> in the job script, or have Slurm reserve ports (srun --resv-ports=1)\n";
    EXPECT_NE(out.find(line), std::string::npos) << out;
    // No run is left looking alive: nothing started training.
    EXPECT_TRUE(statuses(run).empty()) << statusAndErrors(run);

    // The way out the line names: the job script exports MASTER_PORT, which wins over the
    // derived port (taken again).
    const int free = [] {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        ::close(fd);
        return static_cast<int>(ntohs(a.sin_port));
    }();
    const std::string retry =
        writeJobScript(run, 2, "dist-check --preset tiny-32 --batch 2 --device cpu", {}, "export MASTER_PORT=" + std::to_string(free) + "\n");
    const std::string second = submitWithItsPortTaken(retry, listener, port);
    EXPECT_TRUE(cluster->waitForJobState(second, "COMPLETED", std::chrono::seconds(300))) << cluster->describe(second) << output(second);
    ::close(listener);
}

// A cluster that reserves ports for every step (MpiParams=ports): the tasks meet on the first of
// SLURM_STEP_RESV_PORTS, not on the derived port (taken here).
class TrainerOnSlurmWithReservedPorts : public TrainerOnSlurm {
protected:
    SlurmCluster::Options clusterOptions() const override {
        SlurmCluster::Options o = TrainerOnSlurm::clusterOptions();
        o.extraConfig = {"MpiParams=ports=47100-47199"};
        return o;
    }
};

TEST_F(TrainerOnSlurmWithReservedPorts, TheRanksMeetOnTheReservedPort) {
    const std::string script = writeJobScript(run, 2, "dist-check --preset tiny-32 --batch 2 --device cpu");
    int listener = -1, port = 0;
    const std::string id = submitWithItsPortTaken(script, listener, port);
    EXPECT_TRUE(cluster->waitForJobState(id, "COMPLETED", std::chrono::seconds(300))) << cluster->describe(id) << output(id);
    ::close(listener);
    const auto lines = jsonLines(output(id));
    ASSERT_EQ(lines.size(), 2u) << output(id);
    for (const json& j : lines) EXPECT_EQ(j.at("ok"), true) << j.dump();
}

// Without a cluster: a task's environment as srun would set it, one value malformed.
TEST(TrainerSlurmEnvironment, MalformedSlurmVariablesAreOneLineConfigErrors) {
    TempDir tmp;
    CliRunner cli(tmp.path().string());
    const std::string task =
        "env -u WORLD_SIZE SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURM_NTASKS=2 SLURM_STEP_NUM_TASKS=2 SLURM_LOCALID=0 SLURM_STEP_TASKS_PER_NODE=2 "
        "SLURM_STEP_NODELIST=vm ";
    const std::pair<std::string, std::string> cases[] = {
        {"SLURM_PROCID=x", "Slurm's SLURM_PROCID='x' is not a whole number in 0..1: start the trainer with srun inside the Slurm job"},
        {"SLURM_PROCID=0 SLURM_STEP_NODELIST='gpu[01-'",
         "Slurm's SLURM_STEP_NODELIST 'gpu[01-' is not a Slurm host list ('[' without ']'): expected names like gpu[01-03,07],login"},
        {"SLURM_PROCID=0 SLURM_STEP_TASKS_PER_NODE='2(x'", "Slurm's SLURM_STEP_TASKS_PER_NODE='2(x' is not a list of task counts like 2(x3),1"},
        {"SLURM_PROCID=0 SLURM_STEP_RESV_PORTS=none", "Slurm's SLURM_STEP_RESV_PORTS='none' does not start with a port number"}};
    for (const auto& [bad, message] : cases) {
        const CliResult r = cli.run({"train", "--run-dir", tmp / "run", "--preset", "tiny-32", "--steps", "1", "--device", "cpu"}, task + bad);
        EXPECT_EQ(r.code, 3) << bad << "\n" << r.err;
        EXPECT_EQ(r.err.rfind("streetgan-trainer: " + message, 0), 0u) << bad << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    // torchrun's variables win over Slurm's: WORLD_SIZE=1 is one process, whatever SLURM_PROCID says.
    const CliResult r = cli.run({"train", "--run-dir", tmp / "one", "--preset", "tiny-32", "--steps", "1", "--device", "cpu", "--batch", "2",
                                 "--synthetic-images", "8", "--threads", "1"},
                                task + "SLURM_PROCID=x WORLD_SIZE=1");
    EXPECT_EQ(r.code, 0) << r.err;
}
