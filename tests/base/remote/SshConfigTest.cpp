// ~/.ssh/config parsing and resolution (plain unit tests: no server).
#include <gtest/gtest.h>

#include <fstream>

#include "base/remote/SshConfig.h"
#include "base/remote/SshSession.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
using streetgan::test::TempDir;

TEST(SshConfig, HostAliasGivesHostNameUserPortIdentityAndProxyJump) {
    const SshConfig c = SshConfig::parse(
        "# comment\n"
        "Host gpu gpu-box\n"
        "  HostName 10.1.2.3\n"
        "  User alice\n"
        "  Port 2222\n"
        "  IdentityFile ~/.ssh/gpu_key\n"
        "  ProxyJump bastion\n"
        "Host bastion\n"
        "  HostName bastion.example.org\n"
        "  User jump\n");
    const SshHostSettings s = c.resolve("gpu");
    EXPECT_EQ(s.hostName.value_or(""), "10.1.2.3");
    EXPECT_EQ(s.user.value_or(""), "alice");
    EXPECT_EQ(s.port.value_or(0), 2222);
    ASSERT_EQ(s.identityFiles.size(), 1u);
    EXPECT_EQ(s.proxyJump.value_or(""), "bastion");
    EXPECT_EQ(c.resolve("gpu-box").hostName.value_or(""), "10.1.2.3");
    EXPECT_FALSE(c.resolve("other").hostName.has_value());
}

TEST(SshConfig, WildcardsNegationAndFirstValueWins) {
    const SshConfig c = SshConfig::parse(
        "Host *.lab !secret.lab\n"
        "  User labuser\n"
        "  ProxyJump gw.lab:2200\n"
        "Host node?.lab\n"
        "  User nodeuser\n"  // later: does not override the first match
        "  Port 2022\n"
        "Host *\n"
        "  User everyone\n"
        "  IdentityFile ~/.ssh/id_all\n");
    const auto n1 = c.resolve("node1.lab");
    EXPECT_EQ(n1.user.value_or(""), "labuser");
    EXPECT_EQ(n1.port.value_or(0), 2022);
    EXPECT_EQ(n1.proxyJump.value_or(""), "gw.lab:2200");
    const auto secret = c.resolve("secret.lab");
    EXPECT_EQ(secret.user.value_or(""), "everyone");
    EXPECT_FALSE(secret.proxyJump.has_value());
    EXPECT_FALSE(c.resolve("node10.lab").port.has_value());          // ? is exactly one character
    EXPECT_EQ(c.resolve("NODE1.LAB").user.value_or(""), "labuser");  // host names are case-insensitive
    EXPECT_EQ(c.resolve("x").identityFiles.size(), 1u);
}

TEST(SshConfig, KeywordsAreCaseInsensitiveAndAcceptEqualsAndQuotes) {
    const SshConfig c = SshConfig::parse("HOST a\n  hostname=h.example\n  USER = \"bob smith\"\n  identityfile \"/k/with space\"\n  HostName ignored\n");
    const auto s = c.resolve("a");
    EXPECT_EQ(s.hostName.value_or(""), "h.example");
    EXPECT_EQ(s.user.value_or(""), "bob smith");
    ASSERT_EQ(s.identityFiles.size(), 1u);
    EXPECT_EQ(s.identityFiles[0], "/k/with space");
}

TEST(SshConfig, IdentityFilesAccumulateAndHostNameExpandsPercentH) {
    const SshConfig c = SshConfig::parse("Host *.short\n  HostName %h.example.org\n  IdentityFile a\nHost *\n  IdentityFile b\n");
    const auto s = c.resolve("box.short");
    EXPECT_EQ(s.hostName.value_or(""), "box.short.example.org");
    EXPECT_EQ(s.identityFiles, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(SshConfig::expandPath("/keys/%r@%h:%p", "host", 2222, "alice"), "/keys/alice@host:2222");
    EXPECT_EQ(SshConfig::expandPath("%%", "h", 22, "u"), "%");
}

TEST(SshConfig, MatchBlocksOtherThanAllAreNotApplied) {
    const SshConfig c = SshConfig::parse("Match exec \"false\"\n  User nope\nMatch all\n  Port 2200\n");
    EXPECT_FALSE(c.resolve("x").user.has_value());
    EXPECT_EQ(c.resolve("x").port.value_or(0), 2200);
}

TEST(SshConfig, IncludeReadsFilesInTheIncludersContext) {
    TempDir tmp;
    std::ofstream(tmp / "extra.conf") << "User included\nHost inc\n  HostName inc.example\n";
    const SshConfig c = SshConfig::parse("Host box\n  Include extra.conf\n", "cfg", tmp.path().string());
    EXPECT_EQ(c.resolve("box").user.value_or(""), "included");
    EXPECT_FALSE(c.resolve("other").user.has_value());
    EXPECT_EQ(c.resolve("inc").hostName.value_or(""), "inc.example");
}

TEST(SshConfig, MalformedLinesNameTheFileAndLine) {
    try {
        SshConfig::parse("Host a\n  Port banana\n", "my_config");
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("my_config line 2"), std::string::npos) << e.what();
    }
    EXPECT_THROW(SshConfig::parse("Host a\n  User\n"), ConfigError);
}

TEST(SshConfig, MissingFileIsEmpty) { EXPECT_FALSE(SshConfig::load("/nonexistent/ssh_config").resolve("x").user.has_value()); }

TEST(SshConfig, JumpSpecs) {
    auto j = JumpSpec::parse("bob@gw.example:2200");
    EXPECT_EQ(j.user, "bob");
    EXPECT_EQ(j.host, "gw.example");
    EXPECT_EQ(j.port, 2200);
    j = JumpSpec::parse("[::1]:22");
    EXPECT_EQ(j.host, "::1");
    EXPECT_EQ(j.port, 22);
    EXPECT_EQ(JumpSpec::parse("gw").port, 0);
    EXPECT_EQ(JumpSpec::parseList("a,b:23").size(), 2u);
    EXPECT_TRUE(JumpSpec::parseList("none").empty());
    EXPECT_THROW(JumpSpec::parse("gw:notaport"), ConfigError);
    EXPECT_THROW(JumpSpec::parse("@gw"), ConfigError);
}

TEST(SshConfig, HostsResolveAsSshDoesWithMatchIdentitiesOnlyAndProxyCommand) {
    TempDir tmp;
    std::ofstream(tmp / "config") << "Match host gpu2\n  HostName 10.0.0.7\n  IdentitiesOnly yes\n  IdentityFile /k/m\n"
                                  << "Host *\n  ProxyCommand relay %h %p %r %%\n";
    SshOptions o;
    o.host = "bob@gpu2";
    o.configFile = tmp / "config";
    o.useDefaultIdentities = false;
    const auto hops = SshSession::resolve(o);
    ASSERT_EQ(hops.size(), 1u);
    EXPECT_EQ(hops[0].hostName, "10.0.0.7");  // the Match block: ssh -G, not our parser
    EXPECT_TRUE(hops[0].identitiesOnly);
    EXPECT_EQ(hops[0].identityFiles, (std::vector<std::string>{"/k/m"}));
    EXPECT_EQ(hops[0].proxyCommand, "relay 10.0.0.7 22 bob %");
    // ssh's own defaults are not taken for configured keys.
    o.host = "plain";
    EXPECT_TRUE(SshSession::resolve(o)[0].identityFiles.empty());
    // What ssh refuses is one line with its reason.
    std::ofstream(tmp / "config") << "Host x\n  NoSuchOption 1\n";
    try {
        SshSession::resolve(o);
        ADD_FAILURE() << "a bad option passed";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("nosuchoption"), std::string::npos) << e.what();
    }
}

TEST(SshConfig, ExplicitOptionsWinOverTheConfig) {
    TempDir tmp;
    std::ofstream(tmp / "config") << "Host gpu\n  HostName 10.0.0.9\n  User alice\n  Port 2222\n  IdentityFile /k/gpu\n  ProxyJump carol@bastion:2201\n"
                                  << "Host bastion\n  HostName bastion.example\n  IdentityFile /k/bastion\n";
    SshOptions o;
    o.host = "gpu";
    o.configFile = tmp / "config";
    o.useDefaultIdentities = false;
    auto hops = SshSession::resolve(o);
    ASSERT_EQ(hops.size(), 2u);
    EXPECT_EQ(hops[0].hostName, "bastion.example");
    EXPECT_EQ(hops[0].user, "carol");
    EXPECT_EQ(hops[0].port, 2201);
    EXPECT_EQ(hops[0].identityFiles, (std::vector<std::string>{"/k/bastion"}));
    EXPECT_EQ(hops[1].label(), "alice@10.0.0.9:2222");
    EXPECT_EQ(hops[1].knownHostsName(), "[10.0.0.9]:2222");
    o.host = "root@gpu";
    o.port = 22;
    o.identityFiles = {"/k/explicit"};
    o.jump = "none";
    hops = SshSession::resolve(o);
    ASSERT_EQ(hops.size(), 1u);
    EXPECT_EQ(hops[0].label(), "root@10.0.0.9");
    EXPECT_EQ(hops[0].identityFiles, (std::vector<std::string>{"/k/explicit"}));
    o.user = "dave";
    EXPECT_EQ(SshSession::resolve(o)[0].user, "dave");
}

// CVE-2023-51385: a host or user name with shell characters, given by the user (not by the config
// file), would run a command through a ProxyCommand's %h / %r. Refused, as ssh 9.6+ refuses it,
// before ssh -G or any substitution runs; and every substitution is quoted for the shell.
TEST(SshConfig, GivenNamesWithShellCharactersAreRefusedBeforeAnythingRuns) {
    TempDir tmp;
    const std::string pwned = tmp / "pwned";
    std::ofstream(tmp / "ssh_config") << "Host *\n  ProxyCommand sh -c 'echo %h %r > /dev/null'\n";
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"x$(touch " + pwned + ")", "has the shell character '$'"}, {"a;touch " + pwned + "@gpubox", "has the shell character ';'"},
        {"`touch " + pwned + "`", "has the shell character '`'"},   {"-oProxyCommand=touch", "starts with '-'"},
        {"gpu box", "has a space or a control character"},
    };
    for (const auto& [host, why] : bad) {
        streetgan::SshOptions o;
        o.host = host;
        o.configFile = tmp / "ssh_config";
        try {
            streetgan::SshSession::resolve(o);
            ADD_FAILURE() << host << " was accepted";
        } catch (const streetgan::ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("OpenSSH refuses such a name too"), std::string::npos) << e.what();
        }
    }
    streetgan::SshOptions o;
    o.host = "gpubox";
    o.configFile = tmp / "ssh_config";
    o.user = "me|touch";
    EXPECT_THROW(streetgan::SshSession::resolve(o), streetgan::ConfigError);
    o.user.reset();
    o.jump = "bastion$(id)";
    EXPECT_THROW(streetgan::SshSession::resolve(o), streetgan::ConfigError);
    EXPECT_FALSE(std::filesystem::exists(pwned));

    // Ordinary names pass and appear as they are; a name with a character the shell would expand
    // (a glob's '~') reaches the command quoted.
    o.jump.reset();
    o.host = "me.name+tag@gpu-box.example.org";
    EXPECT_EQ(streetgan::SshSession::resolve(o).back().proxyCommand, "sh -c 'echo gpu-box.example.org me.name+tag > /dev/null'");
    std::ofstream(tmp / "ssh_config", std::ios::trunc) << "Host box~1\n  HostName 127.0.0.1\n  ProxyCommand printf %%s %n\n";
    o.host = "box~1";
    EXPECT_EQ(streetgan::SshSession::resolve(o).back().proxyCommand, "printf %s 'box~1'");
}
