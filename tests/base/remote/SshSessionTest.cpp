// SshSession against real OpenSSH servers: exec, host keys, auth, jump hosts, quoting.
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include <regex>

#include "base/remote/RemoteError.h"
#include "base/remote/ShellQuote.h"
#include "base/remote/SshSession.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {
int openFds() {
    int n = 0;
    DIR* d = ::opendir("/proc/self/fd");
    while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
    return n;
}
}  // namespace

class SshSessionTest : public RemoteTest {};

TEST_F(SshSessionTest, ConnectsAndRunsACommand) {
    auto s = SshSession::connect(options());
    const ExecResult r = s->exec("echo hello; echo oops >&2; exit 3");
    EXPECT_EQ(r.out, "hello\n");
    EXPECT_EQ(r.err, "oops\n");
    ASSERT_TRUE(r.exitStatus);
    EXPECT_EQ(*r.exitStatus, 3);
    EXPECT_FALSE(s->viaJump());
    // Several commands on one session, with stdin.
    EXPECT_EQ(s->exec("cat", "piped input").out, "piped input");
    EXPECT_TRUE(s->exec("true").ok());
    // A command that ended before its stdin was written (a check that failed first: exec() loses
    // that race under load) is no lost connection: the write says so, and its status says why.
    // The status first: the end of its output alone does not mean the command has ended (and the
    // server's close of the channel may still be on its way after it).
    auto ended = s->openExec("echo refused >&2; exit 4");
    const auto status = ended->exitStatus();
    ASSERT_TRUE(status);
    EXPECT_EQ(*status, 4);
    EXPECT_FALSE(ended->writeUnlessEnded("the script it never read\n"));
    EXPECT_THROW(ended->write("more"), RemoteError);
    EXPECT_EQ(ended->stderrText(), "refused\n");
    ended.reset();
    EXPECT_TRUE(s->exec("true").ok());  // the session is still usable
}

// A host reached through the configuration's ProxyCommand (here a bash /dev/tcp relay), resolved
// through `ssh -G`, which also honours the Match block the client's own parser would ignore.
TEST_F(SshSessionTest, ConnectsThroughTheConfigsProxyCommand) {
    std::ofstream(tmp / "ssh_config") << "Match host viaproxy\n  HostName 127.0.0.1\n  Port " << target->port() << "\n"
                                      << "  ProxyCommand bash -c 'exec 3<>/dev/tcp/%h/%p; cat <&3 & exec cat >&3'\n";
    SshOptions o = options();
    o.host = "viaproxy";
    o.port.reset();
    o.configFile = tmp / "ssh_config";
    const auto hops = SshSession::resolve(o);
    ASSERT_EQ(hops.size(), 1u);
    EXPECT_EQ(hops[0].hostName, "127.0.0.1");
    EXPECT_EQ(hops[0].proxyCommand, "bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(target->port()) + "; cat <&3 & exec cat >&3'");
    auto s = SshSession::connect(o);
    EXPECT_EQ(s->exec("echo through the proxy").out, "through the proxy\n");
    // A ProxyCommand that cannot reach anything fails with one line naming it.
    std::ofstream(tmp / "ssh_config") << "Host viaproxy\n  HostName 127.0.0.1\n  ProxyCommand false\n";
    try {
        SshSession::connect(o);
        ADD_FAILURE() << "connected through 'false'";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("ProxyCommand 'false'"), std::string::npos) << e.what();
    }
}

TEST_F(SshSessionTest, UnknownHostKeyIsShownToTheCallbackWithItsFingerprint) {
    std::ofstream(knownHosts(), std::ios::trunc).close();
    SshOptions o = options();
    int calls = 0;
    HostKeyInfo seen;
    o.onUnknownHostKey = [&](const HostKeyInfo& k) {
        ++calls;
        seen = k;
        return HostKeyDecision::AcceptAndRemember;
    };
    SshSession::connect(o);
    ASSERT_EQ(calls, 1);
    EXPECT_EQ(seen.fingerprintSha256, target->fingerprint());  // same text as ssh-keygen -lf
    EXPECT_EQ(seen.keyType, "ssh-ed25519");
    EXPECT_EQ(seen.host, "[127.0.0.1]:" + std::to_string(target->port()));
    EXPECT_EQ(seen.knownHostsFile, knownHosts());
    EXPECT_NE(slurp(knownHosts()).find(seen.host), std::string::npos) << slurp(knownHosts());
    SshSession::connect(o);  // remembered: not asked again
    EXPECT_EQ(calls, 1);
}

TEST_F(SshSessionTest, AcceptOnceDoesNotRememberAndRefuseFails) {
    std::ofstream(knownHosts(), std::ios::trunc).close();
    SshOptions o = options();
    int calls = 0;
    o.onUnknownHostKey = [&](const HostKeyInfo&) {
        ++calls;
        return HostKeyDecision::AcceptOnce;
    };
    SshSession::connect(o)->exec("true");
    SshSession::connect(o);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(slurp(knownHosts()), "");
    o.onUnknownHostKey = [](const HostKeyInfo&) { return HostKeyDecision::Refuse; };
    try {
        SshSession::connect(o);
        FAIL() << "refused key accepted";
    } catch (const HostKeyError& e) {
        EXPECT_NE(std::string(e.what()).find(target->fingerprint()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("not known"), std::string::npos) << e.what();
    }
    o.onUnknownHostKey = nullptr;  // no callback: refused too
    EXPECT_THROW(SshSession::connect(o), HostKeyError);
}

TEST_F(SshSessionTest, ChangedHostKeyIsRefusedWithFileLineAndRemedy) {
    // known_hosts says the target's address has another key (line 2).
    SshdFixture::generateKey(tmp / "other_host_key");
    std::istringstream pub(slurp(tmp / "other_host_key.pub"));
    std::string type, key;
    pub >> type >> key;
    std::ofstream(knownHosts(), std::ios::trunc) << "# managed by the test\n[127.0.0.1]:" << target->port() << " " << type << " " << key << "\n";
    SshOptions o = options();
    bool asked = false;
    o.onUnknownHostKey = [&](const HostKeyInfo&) {
        asked = true;
        return HostKeyDecision::AcceptAndRemember;
    };
    try {
        SshSession::connect(o);
        FAIL() << "changed key accepted";
    } catch (const HostKeyError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("CHANGED"), std::string::npos) << m;
        EXPECT_NE(m.find("[127.0.0.1]:" + std::to_string(target->port())), std::string::npos) << m;
        EXPECT_NE(m.find(knownHosts() + " line 2"), std::string::npos) << m;
        EXPECT_NE(m.find("ssh-keygen -R"), std::string::npos) << m;
        EXPECT_NE(m.find(target->fingerprint()), std::string::npos) << m;
    }
    EXPECT_FALSE(asked);  // a changed key is never offered for acceptance
}

TEST_F(SshSessionTest, WrongUserKeyIsRefusedWithAClearError) {
    SshdFixture::generateKey(tmp / "id_stranger");
    SshOptions o = options();
    o.identityFiles = {tmp / "id_stranger"};
    try {
        SshSession::connect(o);
        FAIL() << "stranger key accepted";
    } catch (const AuthError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("refused authentication"), std::string::npos) << m;
        EXPECT_NE(m.find(tmp / "id_stranger"), std::string::npos) << m;
        EXPECT_NE(m.find("authorized_keys"), std::string::npos) << m;
    }
    o.identityFiles = {tmp / "no_such_key"};
    EXPECT_THROW(SshSession::connect(o), AuthError);
}

TEST_F(SshSessionTest, AuthenticatesWithTheAgent) {
    // A private ssh-agent (foreground, child of the test) holding the user key.
    const std::string sock = tmp / "agent.sock";
    const pid_t agent = ::fork();
    ASSERT_GE(agent, 0);
    if (agent == 0) {
        ::execlp("ssh-agent", "ssh-agent", "-D", "-a", sock.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    struct Reaper {
        pid_t pid;
        ~Reaper() {
            ::kill(pid, SIGTERM);
            ::waitpid(pid, nullptr, 0);
            ::unsetenv("SSH_AUTH_SOCK");
        }
    } reaper{agent};
    ASSERT_TRUE(waitFor([&] { return exists(sock); }, 10));
    shellOutput("SSH_AUTH_SOCK='" + sock + "' ssh-add '" + userKey() + "' 2>&1");
    ::setenv("SSH_AUTH_SOCK", sock.c_str(), 1);
    SshOptions o = options();
    o.identityFiles.clear();  // the agent is the only way in
    o.useAgent = true;
    EXPECT_TRUE(SshSession::connect(o)->exec("true").ok());
    o.useAgent = false;
    EXPECT_THROW(SshSession::connect(o), AuthError);
}

TEST_F(SshSessionTest, EncryptedKeyAsksThePassphraseCallback) {
    SshdFixture::generateKey(tmp / "id_locked", "s3cret pass");
    std::ofstream(authorizedKeys(), std::ios::app) << slurp(tmp / "id_locked.pub");
    SshOptions o = options();
    o.identityFiles = {tmp / "id_locked"};
    std::string askedFor;
    o.passphrase = [&](const std::string& file) -> std::optional<std::string> {
        askedFor = file;
        return std::string("s3cret pass");
    };
    EXPECT_TRUE(SshSession::connect(o)->exec("true").ok());
    EXPECT_EQ(askedFor, tmp / "id_locked");
    o.passphrase = [](const std::string&) -> std::optional<std::string> { return std::string("wrong"); };
    try {
        SshSession::connect(o);
        FAIL();
    } catch (const AuthError& e) {
        EXPECT_NE(std::string(e.what()).find("wrong passphrase"), std::string::npos) << e.what();
    }
}

TEST_F(SshSessionTest, JumpHostCarriesTheConnectionWithItsOwnHostKeyCheck) {
    startJump();
    std::ofstream(knownHosts(), std::ios::trunc).close();  // both keys unknown: two questions
    SshOptions o = options();
    o.jump = "127.0.0.1:" + std::to_string(jump->port());
    std::vector<HostKeyInfo> asked;
    o.onUnknownHostKey = [&](const HostKeyInfo& k) {
        asked.push_back(k);
        return HostKeyDecision::AcceptAndRemember;
    };
    const int fdsBefore = openFds();
    {
        auto s = SshSession::connect(o);
        EXPECT_TRUE(s->viaJump());
        const ExecResult r = s->exec("echo $SSH_CONNECTION");
        ASSERT_TRUE(r.ok()) << r.err;
        // The target sees a connection from the jump host's sshd, not from us.
        EXPECT_NE(r.out.find(" 127.0.0.1 " + std::to_string(target->port())), std::string::npos) << r.out;
        EXPECT_GT(s->tunnelBytes(), 1000u);  // every byte of the target session went through the bridge
    }
    ASSERT_EQ(asked.size(), 2u);
    EXPECT_EQ(asked[0].fingerprintSha256, jump->fingerprint());
    EXPECT_FALSE(asked[0].viaJump);
    EXPECT_EQ(asked[1].fingerprintSha256, target->fingerprint());
    EXPECT_TRUE(asked[1].viaJump);
    // The jump sshd logged the forward to the target's port.
    EXPECT_TRUE(
        waitFor([&] { return std::regex_search(jump->log(), std::regex("direct.tcpip.*target 127\\.0\\.0\\.1 port " + std::to_string(target->port()))); }, 10))
        << jump->log();
    // Pump threads and sockets are gone after the session: repeat to catch leaks.
    for (int i = 0; i < 3; ++i) SshSession::connect(o)->exec("true");
    EXPECT_TRUE(waitFor([&] { return openFds() == fdsBefore; }, 10)) << openFds() << " fds, before " << fdsBefore;
}

TEST_F(SshSessionTest, JumpHostFromTheConfigProxyJump) {
    startJump();
    std::ofstream(tmp / "ssh_config") << "Host gpu\n  HostName 127.0.0.1\n  Port " << target->port() << "\n  IdentityFile " << userKey()
                                      << "\n  ProxyJump bastion\nHost bastion\n  HostName 127.0.0.1\n  Port " << jump->port() << "\n  IdentityFile "
                                      << userKey() << "\n";
    SshOptions o = options();
    o.host = "gpu";
    o.port.reset();
    o.identityFiles.clear();
    o.configFile = tmp / "ssh_config";
    auto s = SshSession::connect(o);
    EXPECT_TRUE(s->viaJump());
    EXPECT_EQ(s->exec("echo ok").out, "ok\n");
    o.jump = "none";  // explicit wins over the config
    EXPECT_FALSE(SshSession::connect(o)->viaJump());
}

TEST_F(SshSessionTest, ChainOfJumpHosts) {
    startJump();
    // jump -> jump (again, through the first tunnel) -> target: a tunnel inside a tunnel.
    SshOptions o = options();
    const std::string hop = "127.0.0.1:" + std::to_string(jump->port());
    o.jump = hop + "," + hop;
    const int fdsBefore = openFds();
    {
        auto s = SshSession::connect(o);
        EXPECT_EQ(s->exec("echo deep").out, "deep\n");
    }
    EXPECT_TRUE(waitFor([&] { return openFds() == fdsBefore; }, 10)) << openFds() << " fds, before " << fdsBefore;
}

TEST_F(SshSessionTest, JumpHostThatForbidsForwardingIsAClearError) {
    startJump(false);
    SshOptions o = options();
    o.jump = "127.0.0.1:" + std::to_string(jump->port());
    try {
        SshSession::connect(o);
        FAIL();
    } catch (const RemoteError& e) {
        EXPECT_NE(std::string(e.what()).find("jump host"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("cannot connect to 127.0.0.1:" + std::to_string(target->port())), std::string::npos) << e.what();
    }
}

TEST_F(SshSessionTest, QuotedArgumentsCannotInjectIntoTheRemoteShell) {
    auto s = SshSession::connect(options());
    const std::string marker = tmp / "pwned";
    for (const std::string& word : {"x; touch " + marker, "$(touch " + marker + ")", "`touch " + marker + "`", "x\ntouch " + marker,
                                    "x' ; touch " + marker + " ; '", std::string("a run with spaces"), "x && touch " + marker + " #"}) {
        const ExecResult r = s->exec(ShellQuote::join({"printf", "<%s>", word}));
        EXPECT_EQ(r.out, "<" + word + ">");
        EXPECT_FALSE(exists(marker)) << word;
    }
}

TEST_F(SshSessionTest, UnreachableHostNamesItself) {
    SshOptions o = options();
    o.port = 1;  // nothing listens there
    try {
        SshSession::connect(o);
        FAIL();
    } catch (const RemoteError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot connect to"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("127.0.0.1:1"), std::string::npos) << e.what();
    }
}
