// LocalShell for real: /bin/sh children, their output, stdin, exit status, signals, environment
// and home folder, and the descriptors they must not inherit.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "base/launch/LocalShell.h"

using namespace streetgan;

TEST(LocalShellTest, SeparatesStdoutAndStderrAndReportsTheExitStatus) {
    LocalShell shell;
    const ExecResult r = shell.run("echo hello; echo oops >&2; exit 3");
    EXPECT_EQ(r.out, "hello\n");
    EXPECT_EQ(r.err, "oops\n");
    ASSERT_TRUE(r.exitStatus);
    EXPECT_EQ(*r.exitStatus, 3);
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(shell.run("true").ok());
    EXPECT_EQ(shell.label(), "this computer");
}

TEST(LocalShellTest, StartsInTheHomeFolder) {
    const char* home = std::getenv("HOME");
    ASSERT_TRUE(home && *home);
    const ExecResult r = LocalShell().run("pwd -P");
    EXPECT_EQ(r.out, std::filesystem::canonical(home).string() + "\n");
}

// Megabytes on stdin while the command writes megabytes to stdout and stderr: a loop that served
// one pipe at a time would block on a full pipe while the child blocks on another.
TEST(LocalShellTest, LargeStdinStdoutAndStderrAtOnceDoNotDeadlock) {
    std::string input(3 << 20, 'x');
    for (size_t i = 0; i < input.size(); i += 4096) input[i] = static_cast<char>('a' + (i / 4096) % 26);
    const ExecResult r = LocalShell().run("head -c 2000000 /dev/zero >&2; cat; head -c 1000000 /dev/zero >&2", input);
    ASSERT_TRUE(r.ok()) << r.err.substr(0, 200);
    EXPECT_EQ(r.out, input);
    EXPECT_EQ(r.err.size(), 3000000u);
}

// A command that exits without reading its stdin: our write fails with EPIPE, the SIGPIPE it
// raised is taken back (the test process would die of it otherwise).
TEST(LocalShellTest, ACommandThatIgnoresItsStdinDoesNotKillTheCaller) {
    const ExecResult r = LocalShell().run("exit 4", std::string(8 << 20, 'y'));
    ASSERT_TRUE(r.exitStatus);
    EXPECT_EQ(*r.exitStatus, 4);
    sigset_t pending;
    sigpending(&pending);
    EXPECT_FALSE(sigismember(&pending, SIGPIPE));
}

TEST(LocalShellTest, ACommandKilledByASignalHasNoExitStatus) {
    const ExecResult r = LocalShell().run("echo before; kill -TERM $$; echo after");
    EXPECT_FALSE(r.exitStatus);
    EXPECT_EQ(r.signal, SIGTERM);
    EXPECT_EQ(r.out, "before\n");
    EXPECT_FALSE(r.ok());
}

TEST(LocalShellTest, SetsTheGivenEnvironmentOnTopOfOurs) {
    ::setenv("STREETGAN_SHELL_TEST_KEPT", "kept", 1);
    ::setenv("STREETGAN_SHELL_TEST_REPLACED", "old", 1);
    LocalShell shell({{"STREETGAN_SHELL_TEST_REPLACED", "new value; $(not run)"}, {"STREETGAN_SHELL_TEST_ADDED", "added"}});
    const ExecResult r = shell.run(
        "printf '%s|%s|%s' \"$STREETGAN_SHELL_TEST_KEPT\" \"$STREETGAN_SHELL_TEST_REPLACED\" \"$STREETGAN_SHELL_TEST_ADDED\"; env | grep -c "
        "'^STREETGAN_SHELL_TEST_REPLACED=' >&2");
    EXPECT_EQ(r.out, "kept|new value; $(not run)|added");
    EXPECT_EQ(r.err, "1\n");  // replaced, not set twice
}

// A background process the command leaves behind keeps the pipes open: run() returns when the
// shell exits, with what the shell wrote, and does not wait for the background process.
TEST(LocalShellTest, ReturnsWhenTheShellExitsThoughABackgroundProcessHoldsThePipes) {
    const ExecResult r = LocalShell().run("sleep 300 & echo $!");
    ASSERT_TRUE(r.ok());
    const pid_t background = std::stoi(r.out);
    EXPECT_EQ(::kill(background, 0), 0);  // still running: we did not wait for it
    ::kill(background, SIGKILL);
}

// A descriptor of ours without FD_CLOEXEC is not inherited (a daemon the command detaches would
// otherwise hold our sockets and pipes for its lifetime).
TEST(LocalShellTest, TheCommandInheritsNoDescriptorOfTheCaller) {
    const int fd = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC on purpose
    ASSERT_GE(fd, 3);
    const ExecResult r = LocalShell().run("[ -e /proc/$$/fd/" + std::to_string(fd) + " ] && echo inherited || echo closed");
    ::close(fd);
    EXPECT_EQ(r.out, "closed\n");
}

// run() from several threads at once: each call has its own child and pipes.
TEST(LocalShellTest, RunsFromSeveralThreadsAtOnce) {
    LocalShell shell;
    std::vector<std::string> outs(8);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < outs.size(); ++i)
        threads.emplace_back([&, i] { outs[i] = shell.run("read x; echo \"$x-" + std::to_string(i) + "\"", "line\n").out; });
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < outs.size(); ++i) EXPECT_EQ(outs[i], "line-" + std::to_string(i) + "\n");
}
