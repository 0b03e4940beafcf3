// End to end with the real trainer daemon over SSH (this machine is the remote host, reached on
// loopback): remote start, attach with live latency, a dropped connection resumed with no gap and
// no duplicate, pause/resume/checkpoint-now/stop through attach's stdin and through `remote
// control`, fetch of a checkpoint, remote ls.
#include <signal.h>

#include <atomic>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/remote/RemoteAttach.h"
#include "support/CliRunner.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;

class RemoteDaemonTest : public RemoteTest {
protected:
    void SetUp() override {
        RemoteTest::SetUp();
        std::filesystem::create_directories(tmp / "home");
    }
    void TearDown() override {
        // A run left behind by a failed test: end its daemon.
        for (const auto& dir : runs) {
            std::ifstream pidFile(dir + "/trainer.pid");
            long pid = 0;
            if (pidFile >> pid && pid > 1) ::kill(static_cast<pid_t>(pid), SIGKILL);
        }
    }
    CliResult remote(std::vector<std::string> args) {
        std::vector<std::string> full{"remote",     "--host",           "127.0.0.1",      "--port", std::to_string(target->port()),
                                      "--identity", userKey(),          "--ssh-config",   "none",   "--known-hosts",
                                      knownHosts(), "--remote-trainer", STREETGAN_TRAINER};
        full.insert(full.end(), args.begin(), args.end());
        return cli.run(full, "HOME=" + CliRunner::quote(tmp / "home") + " SSH_AUTH_SOCK=");
    }
    std::string startRun(const std::string& name, int steps) {
        const CliResult r = remote({"start",
                                    "--run-dir",
                                    tmp / ("runs/" + name),
                                    "--preset",
                                    "tiny-32",
                                    "--steps",
                                    std::to_string(steps),
                                    "--batch",
                                    "8",
                                    "--log-every",
                                    "5",
                                    "--sample-every",
                                    "100",
                                    "--checkpoint-every",
                                    "100",
                                    "--device",
                                    "cpu",
                                    "--threads",
                                    "1",
                                    "--loader-threads",
                                    "1",
                                    "--synthetic-images",
                                    "256",
                                    "--seed",
                                    "1"});
        EXPECT_EQ(r.code, 0) << r.err;
        std::string dir = r.out;
        while (!dir.empty() && dir.back() == '\n') dir.pop_back();
        runs.push_back(dir);
        return dir;
    }
    CliRunner cli{tmp.path().string()};
    std::vector<std::string> runs;
};

TEST_F(RemoteDaemonTest, StartAttachDropResumeControlFetchAndLs) {
    const std::string run = startRun("run one", 400);  // a space in the name: quoting end to end
    ASSERT_FALSE(run.empty());
    ASSERT_TRUE(exists(run + "/events.jsonl")) << run;

    AttachOptions a;
    a.run = run;
    a.remoteTrainer = STREETGAN_TRAINER;
    a.initialBackoffSeconds = 0.1;
    RemoteAttach attach(options(), a);
    std::mutex mutex;
    std::vector<AttachMessage> events;
    std::vector<double> liveLatency;
    std::vector<nlohmann::json> replies;
    std::atomic<bool> live{false};
    std::atomic<int64_t> lastStep{0};
    std::atomic<int> checkpoints{0};
    std::string lastState = "running", endState;
    auto state = [&] {
        std::lock_guard<std::mutex> lock(mutex);
        return lastState;
    };
    std::thread driver([&] {
        auto ok = [&](const std::vector<std::string>& args) {
            CliResult r = remote(args);
            EXPECT_EQ(r.code, 0) << r.err;
            return r;
        };
        if (!waitFor([&] { return lastStep.load() >= 20; }, 60)) return attach.stop();
        EXPECT_GT(target->killSessions(), 0);  // the connection drops mid-stream
        if (!waitFor([&] { return lastStep.load() >= 40; }, 60)) return attach.stop();
        attach.sendCommand({{"cmd", "pause"}});  // through the remote attach's stdin
        if (!waitFor([&] { return state() == "paused"; }, 30)) return attach.stop();
        const int64_t pausedAt = lastStep.load();
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        EXPECT_EQ(lastStep.load(), pausedAt);                // no steps while paused
        const CliResult r = ok({"control", run, "resume"});  // through `remote control`
        EXPECT_NE(r.out.find("\"ok\":true"), std::string::npos) << r.out;
        if (!waitFor([&] { return state() == "running"; }, 30)) return attach.stop();
        attach.sendCommand({{"cmd", "checkpoint-now"}});
        if (!waitFor([&] { return checkpoints.load() >= 1; }, 60)) return attach.stop();
        ok({"control", run, "stop"});
    });
    attach.run(
        [&](const AttachMessage& m) {
            std::lock_guard<std::mutex> lock(mutex);
            if (m.kind == AttachMessage::Kind::Live) live = true;
            if (m.kind == AttachMessage::Kind::Reply) replies.push_back(m.body);
            if (m.kind == AttachMessage::Kind::End) endState = m.state;
            if (m.kind != AttachMessage::Kind::Event) return;
            events.push_back(m);
            const std::string kind = m.body.value("kind", "");
            if (m.body.contains("step") && m.body["step"].is_number_integer()) lastStep = m.body["step"].get<int64_t>();
            if (kind == "status") lastState = m.body.value("state", "");
            if (kind == "checkpoint") ++checkpoints;
            if (live && kind == "metrics" && m.body.contains("t")) liveLatency.push_back(m.receivedAt - m.body["t"].get<double>());
        },
        [&](const AttachStatus& s) {
            // Events written while the connection was down come as the new backlog: not a latency.
            if (s.state == AttachStatus::State::Reconnecting) live = false;
        });
    driver.join();

    EXPECT_EQ(endState, "stopped");
    EXPECT_GE(attach.connections(), 2);
    // Every line of the real events.jsonl arrived once, in order, offsets contiguous.
    const std::string log = slurp(run + "/events.jsonl");
    uint64_t at = 0;
    size_t i = 0;
    for (; at < log.size() && i < events.size(); ++i) {
        const size_t nl = log.find('\n', at);
        ASSERT_NE(nl, std::string::npos);
        EXPECT_EQ(events[i].offset, at) << "event " << i;
        EXPECT_EQ(events[i].end, nl + 1) << "event " << i;
        EXPECT_EQ(events[i].line.find(log.substr(at, nl - at)) != std::string::npos || nlohmann::json::parse(log.substr(at, nl - at)) == events[i].body, true);
        at = nl + 1;
    }
    EXPECT_EQ(i, events.size());
    EXPECT_EQ(at, log.size()) << "events missing at the end";
    // Live events arrive within a second of being written.
    ASSERT_FALSE(liveLatency.empty());
    std::sort(liveLatency.begin(), liveLatency.end());
    EXPECT_LT(liveLatency[liveLatency.size() / 2], 1.0);
    EXPECT_LT(liveLatency.back(), 1.0) << "slowest of " << liveLatency.size() << ": " << liveLatency.back() << " s";
    ASSERT_GE(replies.size(), 2u);
    EXPECT_EQ(replies[0].value("ok", false), true) << replies[0];

    // The checkpoint, fetched over SFTP, is the file on the (loopback) remote side.
    CliResult r = remote({"fetch", run, "--checkpoint", "latest", "--to", tmp / "fetched"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::string local = r.out;
    while (!local.empty() && local.back() == '\n') local.pop_back();
    const std::string name = local.substr(local.rfind('/') + 1);
    EXPECT_EQ(slurp(local), slurp(run + "/checkpoints/" + name));
    EXPECT_GT(slurp(local).size(), 1000u);

    // ls over SSH sees the run and its state.
    r = remote({"ls", tmp / "runs", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["runs"].size(), 1u) << r.out;
    EXPECT_EQ(j["runs"][0]["state"], "stopped");
    EXPECT_EQ(j["runs"][0]["name"], "run one");
}

TEST_F(RemoteDaemonTest, AttachToAFinishedRunSendsTheBacklogThenTheEnd) {
    const std::string run = startRun("short", 10);
    ASSERT_FALSE(run.empty());
    // Wait until the daemon has finished (attach would follow it to the end anyway).
    std::vector<AttachMessage> events;
    std::string endState;
    AttachOptions a;
    a.run = run;
    a.remoteTrainer = STREETGAN_TRAINER;
    RemoteAttach(options(), a).run([&](const AttachMessage& m) {
        if (m.kind == AttachMessage::Kind::Event) events.push_back(m);
        if (m.kind == AttachMessage::Kind::End) endState = m.state;
    });
    EXPECT_EQ(endState, "finished");
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().end, slurp(run + "/events.jsonl").size());
    // Again from the last offset: nothing new, only the end line.
    a.fromOffset = events.back().end;
    int more = 0;
    RemoteAttach(options(), a).run([&](const AttachMessage& m) { more += m.kind == AttachMessage::Kind::Event; });
    EXPECT_EQ(more, 0);
}
