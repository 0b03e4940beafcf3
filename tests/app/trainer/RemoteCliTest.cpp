// `streetgan-trainer remote ...` end to end against a real sshd, with fake_trainer.py as the
// remote binary (it prints the argv it got, so quoting is checked word for word).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "support/CliRunner.h"
#include "support/RemoteTestBase.h"

using namespace streetgan::test;

class RemoteCliTest : public RemoteTest {
protected:
    void SetUp() override {
        RemoteTest::SetUp();
        std::filesystem::create_directories(tmp / "home");
    }
    // HOME is a temp folder and no agent: nothing of the real ~/.ssh is read or written.
    CliResult remote(std::vector<std::string> args, bool withKnownHosts = true, const std::string& trainer = STREETGAN_FAKE_TRAINER,
                     const std::string& stdinText = "") {
        std::vector<std::string> full{"remote",       "--host", "127.0.0.1",        "--port", std::to_string(target->port()), "--identity", userKey(),
                                      "--ssh-config", "none",   "--remote-trainer", trainer};
        if (withKnownHosts) {
            full.emplace_back("--known-hosts");
            full.push_back(knownHosts());
        }
        full.insert(full.end(), args.begin(), args.end());
        const std::string feed = stdinText.empty() ? "" : "printf '%s' " + CliRunner::quote(stdinText) + " | ";
        return cli.run(full, feed + "HOME=" + CliRunner::quote(tmp / "home") + " SSH_AUTH_SOCK=");
    }
    static nlohmann::json argvOf(const CliResult& r) { return nlohmann::json::parse(r.out)["argv"]; }
    /// The connection arguments remote() gives, for a trainer that is not installed there.
    std::vector<std::string> remoteWithoutTrainer(const std::vector<std::string>& args) {
        std::vector<std::string> full{"remote",    "--host",       "127.0.0.1", "--port",           std::to_string(target->port()),        "--identity",
                                      userKey(),   "--ssh-config", "none",      "--remote-trainer", tmp / "no-such-dir/streetgan-trainer", "--known-hosts",
                                      knownHosts()};
        full.insert(full.end(), args.begin(), args.end());
        return full;
    }
    /// The first `lines` lines the trainer prints with `args` (a follow that never ends by itself
    /// ends when `head` has them: the trainer's next write fails).
    std::vector<nlohmann::json> firstLines(const std::vector<std::string>& args, int lines) {
        std::string cmd = "HOME=" + CliRunner::quote(tmp / "home") + " SSH_AUTH_SOCK= " + CliRunner::quote(STREETGAN_TRAINER);
        for (const auto& a : args) cmd += " " + CliRunner::quote(a);
        cmd += " </dev/null 2>/dev/null | head -n " + std::to_string(lines);
        std::vector<nlohmann::json> out;
        FILE* p = ::popen(cmd.c_str(), "r");
        if (!p) return out;
        std::string text;
        char buf[4096];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
        ::pclose(p);
        std::istringstream in(text);
        for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l, nullptr, false));
        return out;
    }

    CliRunner cli{tmp.path().string()};
};

TEST_F(RemoteCliTest, UnknownHostKeyIsAnErrorThatPrintsTheFingerprintAndTheWayOut) {
    std::ofstream(knownHosts(), std::ios::trunc).close();
    const CliResult r = remote({"ls", "/tmp"});
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find(target->fingerprint()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--accept-new-host-key"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(knownHosts()), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
    EXPECT_EQ(slurp(knownHosts()), "");
}

TEST_F(RemoteCliTest, AcceptNewHostKeyAddsItToKnownHosts) {
    std::ofstream(knownHosts(), std::ios::trunc).close();
    CliResult r = remote({"--accept-new-host-key", "ls", "/tmp"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(slurp(knownHosts()).find("[127.0.0.1]:" + std::to_string(target->port())), std::string::npos);
    r = remote({"ls", "/tmp"});  // now known
    EXPECT_EQ(r.code, 0) << r.err;
    // A known_hosts whose folder does not exist yet (a fresh ~/.ssh).
    const std::string fresh = tmp / "fresh/.ssh/known_hosts";
    r = remote({"--known-hosts", fresh, "--accept-new-host-key", "ls", "/tmp"}, false);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(slurp(fresh).find("[127.0.0.1]:" + std::to_string(target->port())), std::string::npos);
}

TEST_F(RemoteCliTest, DefaultKnownHostsIsUnderHome) {
    std::filesystem::create_directories(tmp / "home/.ssh");
    std::ofstream(tmp / "home/.ssh/known_hosts") << target->knownHostsLine();
    EXPECT_EQ(remote({"ls", "/tmp"}, false).code, 0);
}

TEST_F(RemoteCliTest, ArgumentsReachTheRemoteTrainerAsSingleWords) {
    const std::string marker = tmp / "pwned";
    const std::string evil = "x; touch " + marker + " $(touch " + marker + ") `touch " + marker + "`\n touch " + marker;
    CliResult r = remote({"ls", evil, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(argvOf(r), nlohmann::json({"ls", evil, "--json"}));
    r = remote({"control", "it's a run", "set-lr", "0.0001"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(argvOf(r), nlohmann::json({"control", "it's a run", "set-lr", "0.0001"}));
    r = remote({"start", "--run-dir", "runs/my run", "--preset", "tiny-32", "--steps", "400", "--lr", "2e-4"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(argvOf(r), nlohmann::json({"start", "--detach", "--run-dir", "runs/my run", "--preset", "tiny-32", "--steps", "400", "--lr", "2e-4"}));
    EXPECT_FALSE(exists(marker));
}

TEST_F(RemoteCliTest, RemoteExitCodesAndMissingTrainerAreReported) {
    // A folder with no TensorBoard run to list over SFTP instead: the missing trainer is the error.
    std::filesystem::create_directories(tmp / "no-runs");
    CliResult r = remote({"ls", tmp / "no-runs"}, true, tmp / "no-such-trainer");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("--remote-trainer"), std::string::npos) << r.err;
    std::ofstream(tmp / "exit3.sh") << "#!/bin/sh\necho rejected >&2\nexit 3\n";
    std::filesystem::permissions(tmp / "exit3.sh", std::filesystem::perms::owner_all);
    r = remote({"control", "run", "pause"}, true, tmp / "exit3.sh");
    EXPECT_EQ(r.code, 3);
    EXPECT_EQ(r.err, "rejected\n");
}

TEST_F(RemoteCliTest, FetchDownloadsTheLatestCheckpointAndSkipsItWhenUpToDate) {
    const std::string run = tmp / "runs/r1";
    std::filesystem::create_directories(run + "/checkpoints");
    std::string big(1500000, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7919 % 251);
    std::ofstream(run + "/checkpoints/checkpoint_2.pt") << "old";
    std::ofstream(run + "/checkpoints/checkpoint_10.pt", std::ios::binary) << big;
    CliResult r = remote({"fetch", run, "--checkpoint", "latest", "--to", tmp / "out"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, tmp / "out/checkpoint_10.pt\n");
    EXPECT_EQ(slurp(tmp / "out/checkpoint_10.pt"), big);
    r = remote({"fetch", run, "--checkpoint", "latest", "--to", tmp / "out"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("up to date"), std::string::npos) << r.err;
    // By name, into the cache under $HOME.
    r = remote({"fetch", run, "--checkpoint", "checkpoint_2.pt"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string cached = tmp / ("home/.cache/streetgan/remote/127.0.0.1_" + std::to_string(target->port()) + run + "/checkpoints/checkpoint_2.pt");
    EXPECT_EQ(r.out, cached + "\n");
    EXPECT_EQ(slurp(cached), "old");
    r = remote({"fetch", tmp / "runs/none", "--checkpoint", "latest", "--to", tmp / "out"});
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("no checkpoints"), std::string::npos) << r.err;
}

TEST_F(RemoteCliTest, AttachPrintsTheProtocolLinesUntilTheRunEnds) {
    const std::string run = tmp / "run";
    std::filesystem::create_directories(run);
    std::ofstream(run + "/events.jsonl") << R"({"t":1,"step":1})"
                                         << "\n"
                                         << R"({"t":2,"step":2})"
                                         << "\n";
    std::ofstream(run + "/done") << "finished";
    CliResult r = remote({"attach", run});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream lines(r.out);
    std::vector<nlohmann::json> js;
    for (std::string l; std::getline(lines, l);) js.push_back(nlohmann::json::parse(l));
    ASSERT_EQ(js.size(), 4u) << r.out;
    EXPECT_EQ(js[0]["event"]["step"], 1);
    EXPECT_EQ(js[1]["offset"], js[0]["end"]);
    EXPECT_EQ(js[2]["live"], true);
    EXPECT_EQ(js[3]["end"], true);
    r = remote({"attach", run, "--from-offset", js[0]["end"].dump()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find(R"("step":1)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(R"("step":2)"), std::string::npos) << r.out;
}

TEST_F(RemoteCliTest, AttachRelaysCommandsFromStdinAndStopsAfterSeconds) {
    const std::string run = tmp / "run";
    std::filesystem::create_directories(run);
    std::ofstream(run + "/events.jsonl") << R"({"t":1,"step":1})"
                                         << "\n";
    const auto t0 = std::chrono::steady_clock::now();
    const CliResult r = remote({"attach", run, "--seconds", "3"}, true, STREETGAN_FAKE_TRAINER, "{\"cmd\":\"pause\"}\nnot json\n");
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_GE(took, 3.0);
    EXPECT_NE(r.out.find(R"({"reply":{"ok":true,"cmd":"pause"}})"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("not a JSON command"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(run + "/commands.log"), "{\"cmd\":\"pause\"}\n");
}

TEST_F(RemoteCliTest, JumpHostAndConfigAliases) {
    startJump();
    CliResult r = remote({"--jump", "127.0.0.1:" + std::to_string(jump->port()), "ls", "/x"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::ofstream(tmp / "ssh_config") << "Host gpu-*\n  HostName 127.0.0.1\n  Port " << target->port() << "\n  IdentityFile " << userKey()
                                      << "\n  ProxyJump bastion\nHost bastion\n  HostName 127.0.0.1\n  Port " << jump->port() << "\n  IdentityFile "
                                      << userKey() << "\n";
    r = cli.run({"remote", "--host", "gpu-1", "--ssh-config", tmp / "ssh_config", "--known-hosts", knownHosts(), "--remote-trainer", STREETGAN_FAKE_TRAINER,
                 "ls", "/y"},
                "HOME=" + CliRunner::quote(tmp / "home") + " SSH_AUTH_SOCK=");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(argvOf(r), nlohmann::json({"ls", "/y"}));
    EXPECT_NE(jump->log().find("direct-tcpip"), std::string::npos);
}

// A TensorBoard run of the reference project (SummaryWriter's files: the tensorboard_runs
// fixture) is listed and followed here, and on a host without streetgan-trainer over SFTP.
TEST_F(RemoteCliTest, TensorBoardRunsAreListedAndFollowedHereAndOnAHostWithoutTheTrainer) {
    const std::filesystem::path root = tmp / "tb-runs";
    std::filesystem::create_directories(root / "dcgan-msls");
    std::filesystem::copy(std::filesystem::path(STREETGAN_TEST_TB_RUNS) / "reference/dcgan-msls", root / "dcgan-msls",
                          std::filesystem::copy_options::recursive);
    const std::string run = root / "dcgan-msls/events";
    CliResult r = cli.run({"ls", root, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    auto runs = nlohmann::json::parse(r.out)["runs"];
    ASSERT_EQ(runs.size(), 1u) << r.out;
    EXPECT_EQ(runs[0]["name"], "dcgan-msls");  // the reference's RUNS/NAME/events/ is NAME
    EXPECT_EQ(runs[0]["state"], "tensorboard");
    EXPECT_EQ(runs[0]["step"], 59 * 128);
    EXPECT_TRUE(runs[0]["scalars"].contains("lr/G")) << r.out;
    r = cli.run({"ls", root});
    EXPECT_NE(r.out.find("dcgan-msls "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("tensorboard"), std::string::npos) << r.out;

    // attach: 60 steps and 6 images, the live line before the last step (held until the run is quiet).
    auto count = [](const std::vector<nlohmann::json>& lines, const char* kind) {
        return std::count_if(lines.begin(), lines.end(), [&](const nlohmann::json& j) { return j.contains("event") && j["event"]["kind"] == kind; });
    };
    auto lines = firstLines({"attach", run, "--seconds", "300"}, 67);
    ASSERT_EQ(lines.size(), 67u);
    EXPECT_EQ(count(lines, "metrics"), 60);
    EXPECT_EQ(count(lines, "sample"), 6);
    EXPECT_EQ(lines[65]["live"], true);
    EXPECT_EQ(lines[65]["state"], "tensorboard");
    EXPECT_EQ(lines[66]["event"]["step"], 59 * 128);

    // A host where only sshd runs: ls finds the run over SFTP, attach follows it over SFTP.
    r = cli.run(remoteWithoutTrainer({"ls", root, "--json"}), "HOME=" + CliRunner::quote(tmp / "home") + " SSH_AUTH_SOCK=");
    ASSERT_EQ(r.code, 0) << r.err;
    runs = nlohmann::json::parse(r.out)["runs"];
    ASSERT_EQ(runs.size(), 1u) << r.out;
    EXPECT_EQ(runs[0]["path"], run);
    EXPECT_NE(r.err.find("was not found"), std::string::npos) << r.err;
    const auto remoteLines = firstLines(remoteWithoutTrainer({"attach", run, "--seconds", "300"}), 67);
    ASSERT_EQ(remoteLines.size(), 67u);
    for (size_t i = 0; i < 65; ++i) EXPECT_EQ(remoteLines[i], lines[i]) << i;  // the same lines as attach here
    EXPECT_EQ(remoteLines[65]["live"], true);
}
