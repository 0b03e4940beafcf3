// The trainer daemon end to end: `start --detach`, `ls`, `attach`, `control` as real processes
// on real run directories (docs/attach-protocol.md). Every test kills what it started.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/CliRunner.h"
#include "support/RunProbe.h"
#include "support/TempDir.h"

using namespace streetgan::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<json> parseLines(const std::string& text) {
    std::vector<json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) out.push_back(json::parse(line));
    return out;
}

bool hasEvent(const std::string& runDir, const std::function<bool(const json&)>& pred) {
    for (const auto& e : readEvents(runDir))
        if (pred(e)) return true;
    return false;
}

// Inodes of the TCP sockets (v4 and v6, any state) that `pid` has open.
std::vector<std::string> tcpSocketsOf(pid_t pid) {
    std::set<std::string> tcpInodes;
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(table);
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::istringstream f(line);
            std::string field;
            for (int i = 0; i < 10 && f >> field; ++i) {}
            tcpInodes.insert(field);  // the 10th column: inode
        }
    }
    std::vector<std::string> found;
    for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
        std::error_code ec;
        const std::string target = fs::read_symlink(fd.path(), ec).string();
        if (target.rfind("socket:[", 0) == 0 && tcpInodes.count(target.substr(8, target.size() - 9))) found.push_back(target);
    }
    return found;
}

class Daemon : public ::testing::Test {
protected:
    void TearDown() override {
        for (const auto& d : started_)
            if (pid_t pid = trainerPidOf(d); processAlive(pid)) ::kill(pid, SIGKILL);
    }
    // A tiny CPU run that goes on for minutes unless stopped.
    CliResult start(const std::string& name, std::vector<std::string> extra = {}) {
        std::vector<std::string> args = {"start",
                                         "--detach",
                                         "--run-dir",
                                         tmp / name,
                                         "--preset",
                                         "tiny-32",
                                         "--steps",
                                         "100000",
                                         "--batch",
                                         "4",
                                         "--log-every",
                                         "2",
                                         "--device",
                                         "cpu",
                                         "--threads",
                                         "1",
                                         "--loader-threads",
                                         "1",
                                         "--synthetic-images",
                                         "4096"};
        args.insert(args.end(), extra.begin(), extra.end());
        started_.push_back(tmp / name);
        return cli.run(args);
    }
    json ls() {
        const CliResult r = cli.run({"ls", tmp.path().string(), "--json"});
        EXPECT_EQ(r.code, 0) << r.err;
        return json::parse(r.out);
    }
    std::string stateOf(const std::string& name) {
        const json listing = ls();  // (not `: ls()["runs"]`: the temporary would die before the loop)
        for (const auto& run : listing["runs"])
            if (run["name"] == name) return run["state"];
        ADD_FAILURE() << "no run '" << name << "' in " << listing.dump();
        return "";
    }
    int64_t lastStep(const std::string& runDir) {
        int64_t step = 0;
        for (const auto& e : readEvents(runDir))
            if (e.value("kind", "") == "metrics") step = e["step"];
        return step;
    }

    TempDir tmp;
    CliRunner cli{tmp.path()};
    std::vector<std::string> started_;
};

}  // namespace

TEST_F(Daemon, StartReturnsAtOnceAndTheRunKeepsTraining) {
    // "At once": start returns while its run trains (the trainer is alive below), not when it ends.
    const CliResult r = start("run a");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string dir = tmp / "run a";
    EXPECT_EQ(r.out, fs::canonical(dir).string() + "\n");
    // pid file, log, lock and a private control socket in a private run directory
    const pid_t pid = trainerPidOf(dir);
    ASSERT_TRUE(processAlive(pid));
    EXPECT_NE(::getsid(pid), ::getsid(0)) << "the daemon must have a session of its own";
    struct stat st;
    ASSERT_EQ(::stat((dir + "/control.sock").c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_TRUE(fs::exists(dir + "/trainer.log"));
    // it trains on after `start` returned, and ls says so
    ASSERT_TRUE(waitUntil([&] { return lastStep(dir) >= 10; }));
    EXPECT_EQ(stateOf("run a"), "running");
    // the system panel's readings arrive every few seconds
    ASSERT_TRUE(waitUntil([&] { return hasEvent(dir, [](const json& e) { return e.value("kind", "") == "system"; }); }));
    for (const auto& e : readEvents(dir))
        if (e.value("kind", "") == "system") {
            EXPECT_GT(e["cpu_percent"].get<double>(), 0.0);
            EXPECT_GT(e["rss_mb"].get<double>(), 10.0);
            EXPECT_TRUE(e["gpu_util"].is_null());  // a CPU run
        }
    // the trainer never opens a TCP port: its only socket is the Unix control socket
    EXPECT_TRUE(tcpSocketsOf(pid).empty());
    // a hang-up does not end it
    ::kill(pid, SIGHUP);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_TRUE(processAlive(pid));
    const CliResult stop = cli.run({"control", dir, "stop"});
    EXPECT_EQ(stop.code, 0) << stop.err;
    ASSERT_TRUE(waitUntil([&] { return !processAlive(pid); }));
    EXPECT_EQ(stateOf("run a"), "stopped");
    EXPECT_FALSE(fs::exists(dir + "/control.sock"));
    EXPECT_TRUE(fs::exists(dir + "/checkpoints/checkpoint_0.pt"));
}

TEST_F(Daemon, PauseResumeSetLrCheckpointAndSampleNow) {
    ASSERT_EQ(start("r").code, 0);
    const std::string dir = tmp / "r";
    ASSERT_TRUE(waitUntil([&] { return lastStep(dir) >= 4; }));
    ASSERT_EQ(cli.run({"control", dir, "pause"}).code, 0);
    ASSERT_TRUE(waitUntil([&] { return hasEvent(dir, [](const json& e) { return e.value("state", "") == "paused"; }); }));
    EXPECT_EQ(stateOf("r"), "paused");
    const int64_t pausedAt = lastStep(dir);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    EXPECT_EQ(lastStep(dir), pausedAt) << "no steps while paused";
    // an attach whose reader goes away ends at once, even with no new events to write
    // (from the end: the one line it writes is the "live" line, then it has nothing to write)
    const std::string end = std::to_string(fs::file_size(dir + "/events.jsonl"));
    // (`timeout` ends a hung attach with 124, so the exit status is the check: no time window)
    const std::string cmd = "timeout 120 sh -c " + CliRunner::quote(CliRunner::quote(STREETGAN_TRAINER) + " attach " + CliRunner::quote(dir) +
                                                                    " --from-offset " + end + " | head -n 1 >/dev/null");
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    // commands work while paused
    ASSERT_EQ(cli.run({"control", dir, "checkpoint-now"}).code, 0);
    ASSERT_EQ(cli.run({"control", dir, "sample-now"}).code, 0);
    ASSERT_TRUE(waitUntil([&] { return hasEvent(dir, [](const json& e) { return e.value("kind", "") == "sample"; }); }));
    // checkpoint-now inside the epoch: a file of its own, named by its step (CheckpointName).
    std::string checkpoint;
    for (const auto& e : readEvents(dir))
        if (e.value("kind", "") == "checkpoint") checkpoint = e.value("path", "");
    EXPECT_TRUE(checkpoint.rfind("checkpoints/checkpoint_0_step", 0) == 0) << checkpoint;
    EXPECT_TRUE(fs::exists(dir + "/" + checkpoint)) << checkpoint;
    const CliResult lr = cli.run({"control", dir, "set-lr", "0.00123"});
    ASSERT_EQ(lr.code, 0) << lr.err;
    EXPECT_EQ(json::parse(lr.out)["ok"], true);
    ASSERT_EQ(cli.run({"control", dir, "resume"}).code, 0);
    ASSERT_TRUE(waitUntil(
        [&] { return hasEvent(dir, [](const json& e) { return e.value("kind", "") == "metrics" && std::abs(e.value("lr", 0.0) - 0.00123) < 1e-9; }); }));
    EXPECT_GT(lastStep(dir), pausedAt);
    // run.json says the rate it trains at (a resume continues at it: issue 42 item 3).
    const json runJson = json::parse(CliRunner::slurp(dir + "/run.json"));
    EXPECT_DOUBLE_EQ(runJson["config"]["lr"].get<double>(), 0.00123) << runJson.dump();
    EXPECT_EQ(stateOf("r"), "running");
}

TEST_F(Daemon, BadCommandsAreRefusedWithAnErrorEvent) {
    ASSERT_EQ(start("r").code, 0);
    const std::string dir = tmp / "r";
    const CliResult bad = cli.run({"control", dir, "set-lr", "-1"});
    EXPECT_EQ(bad.code, 3);
    EXPECT_NE(bad.err.find("out of range"), std::string::npos) << bad.err;
    EXPECT_EQ(cli.run({"control", dir, "set-lr", "abc"}).code, 3);
    EXPECT_EQ(cli.run({"control", dir, "explode"}).code, 2);  // not a command at all: usage
    // Through attach's stdin: an unknown command, malformed JSON, and a valid one.
    const CliResult a = cli.run({"attach", dir, "--seconds", "3"}, R"(printf '%s\n' '{"cmd":"explode"}' 'not json' '{"cmd":"sample-now"}' |)");
    ASSERT_EQ(a.code, 0) << a.err;
    std::vector<json> replies;
    for (const auto& l : parseLines(a.out))
        if (l.contains("reply")) replies.push_back(l["reply"]);
    ASSERT_EQ(replies.size(), 3u) << a.out;
    EXPECT_EQ(replies[0]["ok"], false);
    EXPECT_NE(replies[0]["error"].get<std::string>().find("unknown control command 'explode'"), std::string::npos);
    EXPECT_EQ(replies[1]["ok"], false);
    EXPECT_EQ(replies[2]["ok"], true);
    ASSERT_TRUE(waitUntil([&] {
        return hasEvent(dir, [](const json& e) { return e.value("kind", "") == "error" && e.value("message", "").find("explode") != std::string::npos; });
    }));
    EXPECT_EQ(stateOf("r"), "running") << "a refused command does not fail the run";
}

TEST_F(Daemon, AttachResumesWithNoGapAndNoDuplicate) {
    ASSERT_EQ(start("r").code, 0);
    const std::string dir = tmp / "r";
    int64_t offset = 0;
    std::vector<json> received;
    for (int session = 0; session < 3; ++session) {
        const CliResult a = cli.run({"attach", dir, "--from-offset", std::to_string(offset), "--seconds", "1"});
        ASSERT_EQ(a.code, 0) << a.err;
        int live = 0;
        for (const auto& l : parseLines(a.out)) {
            if (l.contains("live")) {
                ++live;
                continue;
            }
            ASSERT_TRUE(l.contains("event")) << l.dump();
            EXPECT_EQ(l["offset"].get<int64_t>(), offset) << "gap or duplicate at session " << session;
            offset = l["end"];
            received.push_back(l["event"]);
        }
        EXPECT_EQ(live, 1);
    }
    // resuming past every status event still names the run's state
    const CliResult mid = cli.run({"attach", dir, "--from-offset", std::to_string(offset), "--seconds", "0.2"});
    ASSERT_EQ(mid.code, 0) << mid.err;
    for (const auto& l : parseLines(mid.out)) {
        if (l.contains("live")) {
            EXPECT_EQ(l["state"], "running");
        }
    }
    ASSERT_EQ(cli.run({"control", dir, "stop"}).code, 0);
    ASSERT_TRUE(waitUntil([&] { return !processAlive(trainerPidOf(dir)); }));
    // The last session follows to the end of the run and says how it ended.
    const CliResult last = cli.run({"attach", dir, "--from-offset", std::to_string(offset)});
    ASSERT_EQ(last.code, 0) << last.err;
    const auto lines = parseLines(last.out);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back()["end"], true);
    EXPECT_EQ(lines.back()["state"], "stopped");
    for (const auto& l : lines)
        if (l.contains("event")) {
            EXPECT_EQ(l["offset"].get<int64_t>(), offset);
            offset = l["end"];
            received.push_back(l["event"]);
        }
    // Everything the trainer wrote, exactly once, in order.
    const auto all = readEvents(dir);
    ASSERT_EQ(received.size(), all.size());
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(received[i], all[i]) << i;
    EXPECT_EQ(offset, static_cast<int64_t>(fs::file_size(dir + "/events.jsonl")));
    // reattaching at the very end (past every status event) still names how the run ended
    const CliResult atEnd = cli.run({"attach", dir, "--from-offset", std::to_string(offset)});
    ASSERT_EQ(atEnd.code, 0) << atEnd.err;
    EXPECT_EQ(parseLines(atEnd.out).back()["state"], "stopped") << atEnd.out;
    // An offset inside a line is refused.
    const CliResult bad = cli.run({"attach", dir, "--from-offset", "3"});
    EXPECT_EQ(bad.code, 3);
    EXPECT_NE(bad.err.find("not the end of a line"), std::string::npos);
}

TEST_F(Daemon, SigtermCheckpointsThenExits) {
    ASSERT_EQ(start("r").code, 0);
    const std::string dir = tmp / "r";
    ASSERT_TRUE(waitUntil([&] { return lastStep(dir) >= 4; }));
    const pid_t pid = trainerPidOf(dir);
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    ASSERT_TRUE(waitUntil([&] { return !processAlive(pid); }));
    const auto events = readEvents(dir);
    ASSERT_GE(events.size(), 2u);
    EXPECT_EQ(events.back()["state"], "stopped");
    // Before the final status: the final checkpoint, then only the quality metrics of checkpoints
    // (SWD is on by default), finished or cancelled by the stop ("cancelled: the run is stopping").
    size_t last = events.size() - 2;
    while (last > 0 && events[last]["kind"] == "metric") --last;
    EXPECT_EQ(events[last]["kind"], "checkpoint");
    EXPECT_EQ(events[last]["step"], events.back()["step"]);
    EXPECT_EQ(stateOf("r"), "stopped");
    const CliResult c = cli.run({"control", dir, "pause"});
    EXPECT_EQ(c.code, 5);
    EXPECT_NE(c.err.find("not running"), std::string::npos) << c.err;
}

TEST_F(Daemon, AKilledTrainerShowsAsCrashedAndResumes) {
    ASSERT_EQ(start("r", {"--checkpoint-every", "6"}).code, 0);
    const std::string dir = tmp / "r";
    ASSERT_TRUE(waitUntil([&] { return hasEvent(dir, [](const json& e) { return e.value("kind", "") == "checkpoint"; }); }));
    const pid_t pid = trainerPidOf(dir);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    ASSERT_TRUE(waitUntil([&] { return !processAlive(pid); }));
    EXPECT_EQ(stateOf("r"), "crashed");
    const CliResult a = cli.run({"attach", dir, "--seconds", "5"});
    ASSERT_EQ(a.code, 0);
    EXPECT_EQ(parseLines(a.out).back()["state"], "crashed");
    // a torn last line (the kill can land mid-write) must not corrupt the next event
    std::ofstream(dir + "/events.jsonl", std::ios::app) << R"({"kind":"metr)";
    const CliResult again = start("r", {"--resume"});
    ASSERT_EQ(again.code, 0) << again.err;
    ASSERT_TRUE(waitUntil([&] { return stateOf("r") == "running"; }));
    const auto events = readEvents(dir);
    bool resumed = false;
    for (const auto& e : events)
        if (e.value("kind", "") == "status" && !e.value("resumed_from", "").empty()) resumed = true;
    EXPECT_TRUE(resumed);
}

// kill -9 at any moment, then --resume, again and again: events.jsonl (append-only) gets every
// metrics step once, in order, and no temporary file is left behind (each as big as a checkpoint).
TEST_F(Daemon, RepeatedKillsAndResumesLogEachStepOnceAndLeaveNoTemporaries) {
    const std::vector<std::string> opts = {"--checkpoint-every", "5"};
    ASSERT_EQ(start("r", opts).code, 0);
    const std::string dir = tmp / "r";
    int64_t killedAt = 0;
    for (int round = 0; round < 4; ++round) {
        // Run past the last kill and past a checkpoint, then kill at once (mid-step or mid-write).
        ASSERT_TRUE(waitUntil([&] { return lastStep(dir) >= killedAt + 7; })) << "round " << round;
        const pid_t pid = trainerPidOf(dir);
        ASSERT_EQ(::kill(pid, SIGKILL), 0);
        ASSERT_TRUE(waitUntil([&] { return !processAlive(pid); }));
        killedAt = lastStep(dir);
        // What a kill in the middle of AtomicFile::write leaves: a full-size temporary.
        std::ofstream(dir + "/checkpoints/checkpoint_0.pt.tmp.99999." + std::to_string(round)) << std::string(4096, 'x');
        std::vector<std::string> resume = opts;
        resume.emplace_back("--resume");
        const CliResult again = start("r", resume);
        ASSERT_EQ(again.code, 0) << again.err;
    }
    ASSERT_TRUE(waitUntil([&] { return lastStep(dir) >= killedAt + 3; }));
    // Stop the live trainer (SIGTERM: a last checkpoint, then exit) before looking for temporaries:
    // while it runs, a temporary may be its checkpoint write in progress (found under TSan, where a
    // write takes long enough to be caught).
    const pid_t last = trainerPidOf(dir);
    ASSERT_EQ(::kill(last, SIGTERM), 0);
    ASSERT_TRUE(waitUntil([&] { return !processAlive(last); }));
    std::vector<int64_t> steps;
    for (const auto& e : readEvents(dir))
        if (e.value("kind", "") == "metrics") steps.push_back(e["step"]);
    ASSERT_FALSE(steps.empty());
    for (size_t i = 1; i < steps.size(); ++i) EXPECT_GT(steps[i], steps[i - 1]) << "metrics step " << steps[i] << " logged again after " << steps[i - 1];
    for (const auto& f : fs::directory_iterator(dir + "/checkpoints"))
        EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path() << " left behind";
}

TEST_F(Daemon, StartFailsInTheForegroundOnBadInput) {
    const CliResult r = start("r", {"--data", (tmp / "no such folder")});
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("no such folder"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(processAlive(trainerPidOf(tmp / "r")));
    const CliResult usage = cli.run({"start", "--run-dir", tmp / "x"});
    EXPECT_EQ(usage.code, 2) << "--detach is required";
}

TEST_F(Daemon, ASecondTrainerOnALiveRunIsRefused) {
    ASSERT_EQ(start("r").code, 0);
    const CliResult second = start("r", {"--resume"});
    EXPECT_EQ(second.code, 5);
    EXPECT_NE(second.err.find("already has a live trainer"), std::string::npos) << second.err;
    const CliResult fg = cli.run({"train", "--run-dir", tmp / "r", "--resume", "--preset", "tiny-32", "--steps", "3"});
    EXPECT_EQ(fg.code, 5);
    EXPECT_EQ(stateOf("r"), "running");
}

TEST_F(Daemon, LsListsEveryRunWithItsState) {
    ASSERT_EQ(cli.run({"train", "--run-dir", tmp / "done", "--preset", "tiny-32", "--steps", "4", "--batch", "4", "--log-every", "2"}).code, 0);
    ASSERT_EQ(start("live").code, 0);
    fs::create_directories(tmp / "not a run");
    const auto runs = ls()["runs"];
    ASSERT_EQ(runs.size(), 2u) << runs.dump();
    EXPECT_EQ(runs[0]["name"], "done");
    EXPECT_EQ(runs[0]["state"], "finished");
    EXPECT_EQ(runs[0]["step"], 4);
    EXPECT_EQ(runs[0]["last_checkpoint"], "checkpoints/checkpoint_0.pt");
    EXPECT_TRUE(runs[0]["loss_d"].is_number());
    EXPECT_EQ(runs[0]["pid"], 0);
    EXPECT_EQ(runs[1]["name"], "live");
    EXPECT_EQ(runs[1]["state"], "running");
    EXPECT_EQ(runs[1]["pid"], trainerPidOf(tmp / "live"));
    const CliResult table = cli.run({"ls", tmp.path().string()});
    EXPECT_NE(table.out.find("finished"), std::string::npos);
    EXPECT_EQ(cli.run({"ls", tmp / "missing"}).code, 5);
}
