// LocalRunLauncher and SshRunLauncher with the real trainer: a tiny CPU run started, seen
// running, stopped and seen stopped, on this computer and through the test sshd; and the errors a
// user meets: no trainer there, options the trainer refuses, a folder that is no run.
#include <signal.h>

#include <fstream>

#include "base/launch/LaunchError.h"
#include "base/launch/LocalRunLauncher.h"
#include "base/launch/SshRunLauncher.h"
#include "base/remote/SshSession.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {
class RunLauncherTest : public RemoteTest {
protected:
    void TearDown() override {
        // A run left behind by a failed test: end its daemon.
        for (const auto& dir : started) {
            std::ifstream pidFile(dir + "/trainer.pid");
            long pid = 0;
            if (pidFile >> pid && pid > 1) ::kill(static_cast<pid_t>(pid), SIGKILL);
        }
    }
    std::vector<std::string> tinyRun(const std::string& dir) const {
        return {"--run-dir",          dir,  "--preset", "tiny-32", "--steps",   "100000", "--batch",          "8",
                "--log-every",        "5",  "--device", "cpu",     "--threads", "1",      "--loader-threads", "1",
                "--synthetic-images", "64", "--seed",   "1"};
    }
    // Start, running, stop, stopped: the life of a run through one launcher.
    void startStateStop(RunLauncher& launcher, const std::string& dir) {
        const std::string run = launcher.start(tinyRun(dir));
        started.push_back(run);
        EXPECT_EQ(run, std::filesystem::weakly_canonical(dir).string());
        const RunLauncher::State s = launcher.state(run);
        EXPECT_EQ(s.state, "running");
        EXPECT_FALSE(s.exitCode);
        EXPECT_EQ(launcher.state(run + "/").state, "running");  // the same run
        launcher.stop(run);
        EXPECT_TRUE(waitFor([&] { return launcher.state(run).state == "stopped"; }, 120)) << launcher.state(run).state;
        // A stopped run takes no more commands: one line naming the host.
        try {
            launcher.stop(run);
            ADD_FAILURE() << "stopping a stopped run succeeded";
        } catch (const LaunchError& e) {
            EXPECT_NE(std::string(e.what()).find(launcher.label()), std::string::npos) << e.what();
            EXPECT_FALSE(e.notRun());
        }
    }
    std::vector<std::string> started;
};
}  // namespace

TEST_F(RunLauncherTest, LocalStartsReadsAndStopsARun) {
    LocalRunLauncher launcher(STREETGAN_TRAINER);
    EXPECT_EQ(launcher.label(), "this computer");
    startStateStop(launcher, tmp / "runs/local run");
}

TEST_F(RunLauncherTest, SshStartsReadsAndStopsARun) {
    auto session = SshSession::connect(options());
    SshRunLauncher launcher(*session, STREETGAN_TRAINER);
    EXPECT_EQ(launcher.label(), session->label());
    startStateStop(launcher, tmp / "runs/it's remote");
}

TEST_F(RunLauncherTest, NoTrainerThereIsOneLineThatSaysSo) {
    LocalRunLauncher launcher(tmp / "no-such-trainer");
    try {
        launcher.start(tinyRun(tmp / "runs/x"));
        FAIL() << "started without a trainer";
    } catch (const LaunchError& e) {
        EXPECT_TRUE(e.notRun());
        const std::string m = e.what();
        EXPECT_NE(m.find("cannot be run on this computer"), std::string::npos) << m;
        EXPECT_NE(m.find("install streetgan-trainer"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    EXPECT_FALSE(exists(tmp / "runs/x"));
}

TEST_F(RunLauncherTest, OptionsTheTrainerRefusesComeBackAsItsMessage) {
    auto session = SshSession::connect(options());
    SshRunLauncher launcher(*session, STREETGAN_TRAINER);
    std::vector<std::string> args = tinyRun(tmp / "runs/bad");
    args.push_back("--batch");
    args.push_back("-3");
    try {
        launcher.start(args);
        FAIL() << "started with --batch -3";
    } catch (const LaunchError& e) {
        EXPECT_FALSE(e.notRun());
        EXPECT_NE(e.trainerMessage().find("--batch"), std::string::npos) << e.trainerMessage();
        EXPECT_NE(std::string(e.what()).find("could not start the run: "), std::string::npos) << e.what();
    }
}

TEST_F(RunLauncherTest, AFolderThatIsNoRunHasNoState) {
    std::filesystem::create_directories(tmp / "plain");
    auto session = SshSession::connect(options());
    SshRunLauncher remote(*session, STREETGAN_TRAINER);
    LocalRunLauncher local(STREETGAN_TRAINER);
    for (RunLauncher* l : {static_cast<RunLauncher*>(&remote), static_cast<RunLauncher*>(&local)}) {
        try {
            l->state(tmp / "plain");
            ADD_FAILURE() << l->label() << " read a state of a plain folder";
        } catch (const LaunchError& e) {
            EXPECT_NE(std::string(e.what()).find("is no run folder"), std::string::npos) << e.what();
        }
    }
}
