// TrainerCommandLine: the words of each trainer command, and the quoted line a shell runs.
#include <gtest/gtest.h>

#include "base/launch/LocalShell.h"
#include "base/launch/TrainerCommandLine.h"

using namespace streetgan;
using Words = std::vector<std::string>;

TEST(TrainerCommandLineTest, StartDetachesOnceWithTheTrainArguments) {
    const TrainerCommandLine t("/opt/sg/streetgan-trainer");
    EXPECT_EQ(t.start({"--run-dir", "runs/a b", "--steps", "10"}),
              (Words{"/opt/sg/streetgan-trainer", "start", "--detach", "--run-dir", "runs/a b", "--steps", "10"}));
    EXPECT_EQ(t.start({"--detach", "--run-dir", "r"}), (Words{"/opt/sg/streetgan-trainer", "start", "--detach", "--run-dir", "r"}));
    EXPECT_EQ(TrainerCommandLine().trainer(), "streetgan-trainer");
}

TEST(TrainerCommandLineTest, ControlStopAndStatusNameTheRun) {
    const TrainerCommandLine t("tr");
    EXPECT_EQ(t.stop("/runs/x"), (Words{"tr", "control", "/runs/x", "stop"}));
    EXPECT_EQ(t.control("/runs/x", "set-lr", "0.001"), (Words{"tr", "control", "/runs/x", "set-lr", "0.001"}));
    EXPECT_EQ(t.status("/runs/x"), (Words{"tr", "ls", "/runs/x", "--json"}));
}

// The Slurm line: one --run-dir and one --resume, whatever the arguments brought (a run dir of
// their own, start's --detach and --wait in both spellings).
TEST(TrainerCommandLineTest, SlurmTrainLineHasOneRunDirAndResume) {
    const TrainerCommandLine t("tr");
    EXPECT_EQ(t.slurmTrain("/shared/runs/a", {"--run-dir", "/elsewhere", "--steps", "5", "--resume", "--detach", "--wait", "30", "--run-dir=/x", "--wait=4",
                                              "--preset", "tiny-32"}),
              (Words{"tr", "train", "--run-dir", "/shared/runs/a", "--resume", "--steps", "5", "--preset", "tiny-32"}));
    EXPECT_EQ(t.slurmTrain("/r", {}), (Words{"tr", "train", "--run-dir", "/r", "--resume"}));
}

// The quoted line reaches the program as the same words, through a real sh.
TEST(TrainerCommandLineTest, ShellLineKeepsEveryWordWhole) {
    const Words words{"printf", "%s|", "a b", "it's", "$HOME", "`x`", "semi;colon", "new\nline", "*"};
    const ExecResult r = LocalShell().run(TrainerCommandLine::shellLine(words));
    EXPECT_EQ(r.out, "a b|it's|$HOME|`x`|semi;colon|new\nline|*|");
}

TEST(TrainerCommandLineTest, StartedRunDirIsTheLastLinePrinted) {
    EXPECT_EQ(TrainerCommandLine::startedRunDir("/runs/a b\n"), "/runs/a b");
    EXPECT_EQ(TrainerCommandLine::startedRunDir("note: something\n/runs/x\n\n"), "/runs/x");
    EXPECT_EQ(TrainerCommandLine::startedRunDir(""), "");
    EXPECT_EQ(TrainerCommandLine::startedRunDir("\n  \n"), "");
}

// A node of a run across hosts: launch --detach with the node's place, train's options after --,
// start's own --detach and --wait (both spellings) dropped.
TEST(TrainerCommandLineTest, LaunchNodeIsADetachedLaunchOfTrain) {
    const TrainerCommandLine t("tr");
    EXPECT_EQ(t.launchNode(2, 3, 1, "gpu01:29500", {"--run-dir", "runs/a", "--detach", "--wait", "30", "--wait=5", "--steps", "9"}),
              (Words{"tr", "launch", "--detach", "--nproc", "2", "--nnodes", "3", "--node-rank", "1", "--master", "gpu01:29500", "--", "train", "--run-dir",
                     "runs/a", "--steps", "9"}));
}

// launch --detach's line read back; anything else (an older trainer, a shell's noise, a pid that
// could be every process) is no launch.
TEST(TrainerCommandLineTest, DetachedLaunchLineIsReadOrRefused) {
    const auto d = TrainerCommandLine::detachedLaunch(
        "motd\n{\"log\":\"/h/runs/a/launch-node0.log\",\"master\":\"gpu01:41234\",\"node_rank\":0,\"pid\":4242,\"run_dir\":\"/h/runs/a\"}\n");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->pid, 4242);
    EXPECT_EQ(d->log, "/h/runs/a/launch-node0.log");
    EXPECT_EQ(d->master, "gpu01:41234");
    EXPECT_EQ(d->runDir, "/h/runs/a");
    const auto noRun = TrainerCommandLine::detachedLaunch("{\"log\":\"/h/c.log\",\"master\":\"m:1\",\"pid\":7}");
    ASSERT_TRUE(noRun);
    EXPECT_EQ(noRun->runDir, "");
    for (const std::string bad : {"", "/h/runs/a", "{\"log\":\"x\",\"master\":\"m:1\"}", "{\"log\":\"x\",\"master\":\"m:1\",\"pid\":\"12\"}",
                                  "{\"log\":\"x\",\"master\":\"m:1\",\"pid\":-1}", "{\"log\":\"x\",\"master\":\"m:1\",\"pid\":1}", "[1,2]",
                                  "{\"log\":3,\"master\":\"m:1\",\"pid\":12}"})
        EXPECT_FALSE(TrainerCommandLine::detachedLaunch(bad)) << bad;
}
