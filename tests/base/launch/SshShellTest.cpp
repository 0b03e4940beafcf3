// SshShell against the test sshd: the `cd` prefix (relative paths start at $HOME, as with
// LocalShell), sh whatever the login shell, stdin, exit status and quoting.
#include <filesystem>

#include "base/launch/SshShell.h"
#include "base/remote/ShellQuote.h"
#include "base/remote/SshSession.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {
// The target sshd with a $HOME of the test's (SetEnv HOME): the login folder stays the user's
// own, so only the shell's `cd` reaches this one.
class SshShellTest : public RemoteTest {
protected:
    void SetUp() override {
        RemoteTest::SetUp();
        std::filesystem::create_directories(tmp / "home/runs");
        std::filesystem::create_directories(tmp / "target-home");
        target.reset();
        SshdFixture::Options o;
        o.home = tmp / "home";
        target = std::make_unique<SshdFixture>(tmp / "target-home", authorizedKeys(), o);
        std::ofstream(knownHosts()) << target->knownHostsLine();
    }
};
}  // namespace

TEST_F(SshShellTest, RunsFromTheHomeFolderWithStdinAndExitStatus) {
    auto session = SshSession::connect(options());
    SshShell shell(*session);
    EXPECT_EQ(shell.label(), session->label());
    const ExecResult here = shell.run("pwd -P; ls");
    EXPECT_EQ(here.out, std::filesystem::canonical(tmp / "home").string() + "\nruns\n");
    const ExecResult r = shell.run("cat; echo oops >&2; exit 5", "piped\n");
    EXPECT_EQ(r.out, "piped\n");
    EXPECT_EQ(r.err, "oops\n");
    ASSERT_TRUE(r.exitStatus);
    EXPECT_EQ(*r.exitStatus, 5);
}

// A command line with quoted words, `$`, quotes and a newline reaches sh unchanged, and the shell
// is sh (POSIX `$(...)`, `[ ]`), so the same line runs as it would through LocalShell.
TEST_F(SshShellTest, PassesTheCommandLineToShUnchanged) {
    auto session = SshSession::connect(options());
    SshShell shell(*session);
    const std::string word = "it's \"a\" $HOME `x`\nline";
    const ExecResult r = shell.run("printf '%s|' " + ShellQuote::join({"printf", word}) + " \"$(echo sub)\"; [ -d runs ] && echo yes");
    EXPECT_EQ(r.out, "printf|" + word + "|sub|yes\n");
    const ExecResult missing = shell.run("no-such-program-here");
    ASSERT_TRUE(missing.exitStatus);
    EXPECT_EQ(*missing.exitStatus, 127);
}
