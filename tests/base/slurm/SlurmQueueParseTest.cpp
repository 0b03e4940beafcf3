// Slurm's answers read: squeue's and sbatch's output as captured from a real slurm-wlm 22.05.8
// cluster (the one-node test cluster, tests/support/SlurmCluster: jobs completed, failed with exit
// 3, failed at scheduling, cancelled while running and while pending, timed out, requeued,
// held, pending for Resources, Priority and a partition's time limit); sacct's in the format its
// manual gives (the test cluster keeps no accounting). Then our states from Slurm's, and the
// state a run listing shows from both.
#include <gtest/gtest.h>

#include "base/run/Events.h"
#include "base/slurm/SlurmQueue.h"
#include "base/slurm/SlurmSubmission.h"

using namespace streetgan;

namespace {

// squeue --noheader --states=all --jobs=1,...,25 '--Format=JobID:|,State:|,Reason:|,exit_code:|'
const char* kSqueue =
    "10|COMPLETED|None|0|\n"
    "17|FAILED|BadConstraints|1|\n"
    "3|FAILED|NonZeroExitCode|768|\n"
    "13|PENDING|Resources|0|\n"
    "14|PENDING|Priority|0|\n"
    "16|PENDING|JobHeldUser|0|\n"
    "8|PENDING|BeginTime|0|\n"
    "11|RUNNING|None|0|\n"
    "15|PENDING|PartitionTimeLimit|0|\n"
    "5|CANCELLED|None|15|\n"
    "7|CANCELLED|Resources|0|\n"
    "6|TIMEOUT|TimeLimit|15|\n"
    "9|COMPLETING|None|0|\n"
    "4|PENDING|Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions|0|\n";

std::map<std::string, SlurmJobState> byId(const std::vector<SlurmJobState>& states) {
    std::map<std::string, SlurmJobState> m;
    for (const auto& s : states) m[s.jobId] = s;
    return m;
}

}  // namespace

TEST(SlurmQueueParseTest, SqueueCommandAsksForEveryStateOfTheGivenJobs) {
    EXPECT_EQ(SlurmQueue::squeueCommand({"12", "7"}), "timeout 10 squeue --noheader --states=all --jobs=12,7 '--Format=JobID:|,State:|,Reason:|,exit_code:|'");
    EXPECT_EQ(SlurmQueue::sacctCommand({"12"}), "timeout 10 sacct -n -P -X -j 12 -o JobID,State,ExitCode,Reason");
    EXPECT_THROW(SlurmQueue::squeueCommand({"12;reboot"}), std::exception);
    // a controller that does not answer: timeout's 124, one line saying so
    const std::string silent = SlurmQueue::failure("squeue", "login1", 124, "");
    EXPECT_NE(silent.find("did not answer within 10 s"), std::string::npos) << silent;
    EXPECT_NE(silent.find("scontrol ping"), std::string::npos) << silent;
}

TEST(SlurmQueueParseTest, ReadsRealSqueueOutput) {
    const auto s = byId(SlurmQueue::parseSqueue(kSqueue));
    ASSERT_EQ(s.size(), 14u);
    const auto is = [&](const char* id, const char* state, const char* reason) {
        ASSERT_TRUE(s.count(id)) << id;
        EXPECT_EQ(s.at(id).state, state) << id;
        EXPECT_EQ(s.at(id).reason, reason) << id;
    };
    is("10", RunState::kFinished, "");
    is("3", RunState::kFailed, "exit code 3");
    is("17", RunState::kFailed, "BadConstraints");
    is("13", "queued", "Resources");
    is("14", "queued", "Priority");
    is("16", "queued", "JobHeldUser");
    is("8", "queued", "BeginTime");
    is("15", "queued", "PartitionTimeLimit");
    is("4", "queued", "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions");
    is("11", RunState::kRunning, "");
    is("9", RunState::kRunning, "");
    is("5", "cancelled", "");
    is("7", "cancelled", "");
    is("6", "timed-out", "time limit");
    EXPECT_EQ(s.at("3").exitCode, 3);
    EXPECT_EQ(s.at("3").signal, 0);
    EXPECT_EQ(s.at("5").signal, 15);
    EXPECT_FALSE(s.at("5").exitCode);
    EXPECT_EQ(s.at("6").slurmState, "TIMEOUT");
}

TEST(SlurmQueueParseTest, SkipsWhatIsNoJobLine) {
    EXPECT_TRUE(SlurmQueue::parseSqueue("").empty());
    EXPECT_TRUE(SlurmQueue::parseSqueue("slurm_load_jobs error: Invalid job id specified\n").empty());
    EXPECT_TRUE(SlurmQueue::parseSqueue("12|RUNNING|\nabc|RUNNING|None|0|\n|PENDING|None|0|\n").empty());
    // no newline after the last line, CRLF, blanks around fields
    const auto s = SlurmQueue::parseSqueue("12|RUNNING|None|0|\r\n 13 | PENDING | Priority | 0 |");
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[1].jobId, "13");
    EXPECT_EQ(s[1].reason, "Priority");
}

// sacct -n -P -X -j IDS -o JobID,State,ExitCode,Reason, as its manual describes: ExitCode is
// code:signal, a cancelled job's State names who cancelled it.
TEST(SlurmQueueParseTest, ReadsSacctOutput) {
    const auto s =
        byId(SlurmQueue::parseSacct("21|COMPLETED|0:0|None\n22|FAILED|2:0|NonZeroExitCode\n23|CANCELLED by 1000|0:15|None\n"
                                    "24|OUT_OF_MEMORY|0:125|OutOfMemory\n25|NODE_FAIL|1:0|NodeDown\n26|TIMEOUT|0:0|TimeLimit\n"
                                    "27.batch|COMPLETED|0:0|\n28|FAILED|0:9|None\n"));
    ASSERT_EQ(s.size(), 7u);
    EXPECT_EQ(s.at("21").state, RunState::kFinished);
    EXPECT_EQ(s.at("22").reason, "exit code 2");
    EXPECT_EQ(s.at("23").state, "cancelled");
    EXPECT_EQ(s.at("23").slurmState, "CANCELLED");
    EXPECT_EQ(s.at("24").reason, "out of memory");
    EXPECT_EQ(s.at("25").reason, "node failure");
    EXPECT_EQ(s.at("26").state, "timed-out");
    EXPECT_EQ(s.at("28").reason, "killed by signal 9");
}

TEST(SlurmJobStateTest, EveryStateOfSlurmHasOneOfOurs) {
    const auto ours = [](const char* slurm) { return SlurmJobState::fromSlurm("1", slurm, "None", std::nullopt, 0).state; };
    for (const char* q : {"PENDING", "CONFIGURING", "REQUEUE_HOLD", "SPECIAL_EXIT", "RESV_DEL_HOLD"}) EXPECT_EQ(ours(q), "queued") << q;
    for (const char* r : {"RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING", "RESIZING"}) EXPECT_EQ(ours(r), "running") << r;
    for (const char* f : {"FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL"}) EXPECT_EQ(ours(f), "failed") << f;
    EXPECT_EQ(ours("COMPLETED"), "finished");
    EXPECT_EQ(ours("CANCELLED"), "cancelled");
    EXPECT_EQ(ours("REVOKED"), "cancelled");
    EXPECT_EQ(ours("TIMEOUT"), "timed-out");
    EXPECT_EQ(ours("DEADLINE"), "timed-out");
    EXPECT_EQ(ours("REQUEUED"), "requeued");
    EXPECT_EQ(ours("PREEMPTED"), "preempted");
    EXPECT_EQ(ours("SUSPENDED"), "suspended");
    EXPECT_EQ(ours("STOPPED"), "suspended");
    const auto odd = SlurmJobState::fromSlurm("1", "WARPED", "None", std::nullopt, 0);
    EXPECT_EQ(odd.state, "unknown");
    EXPECT_EQ(odd.reason, "Slurm state 'WARPED'");
    EXPECT_EQ(SlurmJobState::fromSlurm("1", "REQUEUE_HOLD", "None", std::nullopt, 0).reason, "held");
    EXPECT_TRUE(SlurmJobState::fromSlurm("1", "TIMEOUT", "", std::nullopt, 0).ended());
    EXPECT_FALSE(SlurmJobState::fromSlurm("1", "REQUEUED", "", std::nullopt, 0).ended());
}

// What a listing shows: Slurm decides queued and how a job ended; while it runs, the trainer's
// own state once it has one.
TEST(SlurmJobStateTest, CombinedWithTheTrainersState) {
    const auto job = [](const char* slurm) { return SlurmJobState::fromSlurm("1", slurm, "None", std::nullopt, 0); };
    EXPECT_EQ(job("PENDING").combinedWith(RunState::kNew), "queued");
    EXPECT_EQ(job("PENDING").combinedWith("requeued"), "queued");           // requeued and waiting again
    EXPECT_EQ(job("RUNNING").combinedWith(RunState::kNew), "running");      // the trainer has not written yet
    EXPECT_EQ(job("RUNNING").combinedWith(RunState::kCrashed), "running");  // its lock is on a compute node
    EXPECT_EQ(job("RUNNING").combinedWith(RunState::kPaused), "paused");
    EXPECT_EQ(job("COMPLETING").combinedWith(RunState::kFinished), "finished");
    EXPECT_EQ(job("COMPLETED").combinedWith(RunState::kStopped), "stopped");
    EXPECT_EQ(job("COMPLETED").combinedWith(RunState::kCrashed), "finished");
    EXPECT_EQ(job("CANCELLED").combinedWith(RunState::kStopped), "cancelled");
    EXPECT_EQ(job("FAILED").combinedWith(RunState::kRunning), "failed");
    EXPECT_EQ(job("TIMEOUT").combinedWith(RunState::kCrashed), "timed-out");
    EXPECT_EQ(job("WARPED").combinedWith(RunState::kFinished), "finished");
}

TEST(SlurmQueueParseTest, FailureLinesNameTheToolAndHost) {
    EXPECT_EQ(
        SlurmQueue::failure("squeue", "login1", 127, "sh: 1: squeue: not found\n").rfind("there is no squeue on login1's PATH: is it a Slurm login node?", 0),
        0u);
    EXPECT_EQ(SlurmQueue::failure("squeue", "this computer", 1, "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"),
              "squeue on this computer failed: slurm_load_jobs error: Unable to contact slurm controller (connect failure)");
    EXPECT_EQ(SlurmQueue::failure("scancel", "h", std::nullopt, ""), "scancel on h failed (killed)");
}

TEST(SlurmSubmissionTest, ReadsSbatchParsable) {
    EXPECT_EQ(SlurmSubmission::parseParsable("123\nhpc\n"), std::make_pair(std::string("123"), std::string("")));
    EXPECT_EQ(SlurmSubmission::parseParsable("123;cluster2\n"), std::make_pair(std::string("123"), std::string("cluster2")));
    EXPECT_FALSE(SlurmSubmission::parseParsable(""));
    EXPECT_FALSE(SlurmSubmission::parseParsable("Submitted batch job 123\n"));
}

// sbatch's refusals as the test cluster printed them; the account refusal in Slurm's own words
// (src/common/slurm_errno.c: ESLURM_INVALID_ACCOUNT), which a cluster without accounting cannot give.
TEST(SlurmSubmissionTest, RefusalIsOneLineNamingWhatSlurmRefused) {
    SlurmJobSpec spec;
    spec.runDir = "/runs/r";
    spec.partition = "nope";
    EXPECT_EQ(
        SlurmSubmission::refusal(
            spec, "login1", "sbatch: error: invalid partition specified: nope\nsbatch: error: Batch job submission failed: Invalid partition name specified\n"),
        "Slurm on login1 refused the job of /runs/r: Invalid partition name specified (--partition nope; `sinfo -s` lists the partitions)");
    spec.partition.clear();
    spec.account = "other";
    EXPECT_EQ(
        SlurmSubmission::refusal(spec, "login1", "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified\n"),
        "Slurm on login1 refused the job of /runs/r: Invalid account or account/partition combination specified (--account other; `sacctmgr show assoc "
        "user=$USER format=account,partition` lists yours)");
    spec.gpusPerNode = 1;
    const std::string gres = SlurmSubmission::refusal(spec, "h", "sbatch: error: Invalid generic resource (gres) specification\n");
    EXPECT_EQ(
        gres.rfind("Slurm on h refused the job of /runs/r: Invalid generic resource (gres) specification (--nodes 1, --tasks-per-node 1, --gpus-per-node 1", 0),
        0u)
        << gres;
    const std::string memory = SlurmSubmission::refusal(spec, "h",
                                                        "sbatch: error: Memory specification can not be satisfied\nsbatch: error: Batch job submission failed: "
                                                        "Requested node configuration is not available\n");
    EXPECT_EQ(memory.rfind("Slurm on h refused the job of /runs/r: Requested node configuration is not available (--nodes 1", 0), 0u) << memory;
    for (const auto& line : {gres, memory}) EXPECT_EQ(line.find('\n'), std::string::npos);
}
