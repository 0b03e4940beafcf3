// The daemon's parts in one process: command validation, the control socket round trip, the
// run lock, and following events.jsonl by byte offsets (torn lines included).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "base/daemon/ControlServer.h"
#include "base/daemon/ControlSocket.h"
#include "base/daemon/RunLock.h"
#include "base/daemon/TrainControl.h"
#include "base/follow/AttachFollower.h"
#include "base/follow/EventFollower.h"
#include "base/follow/RunStatus.h"
#include "base/run/EventLog.h"
#include "base/util/Errors.h"
#include "support/TempDir.h"

using namespace streetgan;
using nlohmann::json;
using streetgan::test::TempDir;

TEST(TrainControl, ValidatesEveryCommand) {
    TrainControl c;
    EXPECT_EQ(c.submit({{"cmd", "pause"}})["ok"], true);
    EXPECT_EQ(c.submit({{"cmd", "set-lr"}, {"value", 1e-4}})["value"], 1e-4);
    EXPECT_EQ(c.submit({{"cmd", "set-lr"}})["ok"], false);
    EXPECT_EQ(c.submit({{"cmd", "set-lr"}, {"value", "fast"}})["ok"], false);
    EXPECT_EQ(c.submit({{"cmd", "set-lr"}, {"value", -1}})["ok"], false);
    EXPECT_EQ(c.submit({{"cmd", "set-lr"}, {"value", 1e300}})["ok"], false);
    EXPECT_EQ(c.submit({{"cmd", "set-lr"}, {"value", 0.0}})["ok"], false);  // TrainConfig::kLrMin..kLrMax, as --lr
    EXPECT_EQ(c.submit({{"cmd", "set-lr"}, {"value", 10.0}})["ok"], true);
    const json unknown = c.submit({{"cmd", "rm -rf /"}});
    EXPECT_EQ(unknown["ok"], false);
    EXPECT_NE(unknown["error"].get<std::string>().find("unknown control command"), std::string::npos);
    EXPECT_EQ(c.submit(json::array({1, 2}))["ok"], false);
    EXPECT_EQ(c.submitLine("{not json")["ok"], false);
    const auto queued = c.take();
    ASSERT_EQ(queued.size(), 11u);  // refusals are queued too, for the trainer's error events
    EXPECT_TRUE(queued[0].rejected.empty());
    EXPECT_EQ(queued[1].value, 1e-4);
    EXPECT_FALSE(queued[2].rejected.empty());
    EXPECT_TRUE(c.take().empty());
}

// {"cmd":"pause","cmd":"stop"}: a JSON parser keeps the last key, so the sender's "pause" would
// stop the run. Refused (and queued, for the trainer's error event), at any depth; one key each passes.
TEST(TrainControl, AKeyTwiceInOneCommandIsRefused) {
    TrainControl c;
    const json twice = c.submitLine(R"({"cmd":"pause","cmd":"stop"})");
    EXPECT_EQ(twice["ok"], false);
    EXPECT_NE(twice["error"].get<std::string>().find("the key 'cmd' appears twice in one control command"), std::string::npos) << twice;
    EXPECT_EQ(c.submitLine(R"({"cmd":"set-lr","value":1e-4,"value":5})")["ok"], false);
    EXPECT_EQ(c.submitLine(R"({"cmd":"pause","extra":{"a":1,"a":2}})")["ok"], false);
    // The same key in two sibling objects is no duplicate.
    EXPECT_EQ(c.submitLine(R"({"cmd":"pause","x":{"a":1},"y":{"a":2}})")["ok"], true);
    EXPECT_EQ(c.submitLine(R"({"cmd":"sample-now"})")["ok"], true);
    const auto queued = c.take();
    ASSERT_EQ(queued.size(), 5u);
    EXPECT_FALSE(queued[0].rejected.empty());
    EXPECT_NE(queued[0].cmd, "stop");  // nothing of the refused line is obeyed
    EXPECT_TRUE(queued[3].rejected.empty());
    EXPECT_EQ(queued[3].cmd, "pause");
}

TEST(ControlServer, AnswersEachRequestLineOnALongPath) {
    TempDir tmp;
    std::string dir = tmp.path().string() + "/" + std::string(120, 'd');  // beyond sun_path's 108 bytes
    ASSERT_TRUE(std::filesystem::create_directories(dir));
    TrainControl control;
    {
        ControlServer server(ControlSocket::pathIn(dir), control);
        struct stat st;
        ASSERT_EQ(::stat(ControlSocket::pathIn(dir).c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0600u);
        EXPECT_EQ(ControlSocket::request(server.path(), {{"cmd", "sample-now"}})["ok"], true);
        EXPECT_EQ(ControlSocket::request(server.path(), {{"cmd", "nope"}})["ok"], false);
        // several requests on one connection, answered in order
        const int fd = ControlSocket::connectTo(server.path());
        ASSERT_TRUE(ControlSocket::sendAll(fd, "{\"cmd\":\"pause\"}\n\n{\"cmd\":\"resume\"}\n"));
        std::string buf, line;
        ASSERT_TRUE(ControlSocket::readLine(fd, buf, line, 5000));
        EXPECT_EQ(json::parse(line)["cmd"], "pause");
        ASSERT_TRUE(ControlSocket::readLine(fd, buf, line, 5000));
        EXPECT_EQ(json::parse(line)["cmd"], "resume");
        ::close(fd);
    }
    EXPECT_EQ(control.take().size(), 4u);
    EXPECT_THROW(ControlSocket::request(ControlSocket::pathIn(dir), {{"cmd", "pause"}}), IoError);
}

TEST(RunLock, OneTrainerPerRunAndProbesDoNotTakeIt) {
    TempDir tmp;
    const std::string dir = tmp.path().string();
    EXPECT_FALSE(RunLock::isHeld(dir));
    {
        RunLock lock(dir);
        EXPECT_TRUE(RunLock::isHeld(dir));
        EXPECT_EQ(RunLock::recordedPid(dir), ::getpid());
        EXPECT_THROW(RunLock second(dir), IoError);
        EXPECT_TRUE(RunLock::isHeld(dir));
    }
    EXPECT_FALSE(RunLock::isHeld(dir));
    EXPECT_EQ(RunLock::recordedPid(dir), 0);
    RunLock again(dir);  // free again after release
}

TEST(RunStatus, EffectiveState) {
    EXPECT_EQ(RunStatus::effectiveState("running", true), "running");
    EXPECT_EQ(RunStatus::effectiveState("running", false), "crashed");
    EXPECT_EQ(RunStatus::effectiveState("paused", false), "crashed");
    EXPECT_EQ(RunStatus::effectiveState("finished", false), "finished");
    EXPECT_EQ(RunStatus::effectiveState("", false), "new");
}

TEST(EventFollower, ReturnsCompleteLinesWithTheirByteRanges) {
    TempDir tmp;
    const std::string path = tmp / "events.jsonl";
    EventFollower early(path, 0);  // the file does not exist yet
    EXPECT_TRUE(early.read().empty());
    EXPECT_THROW(EventFollower(path, 10), ConfigError);
    std::ofstream(path) << "{\"a\":1}\n{\"b\":2}\n{\"c\":";  // a torn last line
    auto lines = early.read();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].offset, 0);
    EXPECT_EQ(lines[0].end, 8);
    EXPECT_EQ(lines[1].text, "{\"b\":2}");
    EXPECT_EQ(early.offset(), 16);
    EXPECT_TRUE(early.read().empty());  // the torn line waits for its newline
    std::ofstream(path, std::ios::app) << "3}\n";
    lines = early.read();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].offset, 16);
    EXPECT_EQ(lines[0].text, "{\"c\":3}");
    // resuming from an end offset continues exactly there; inside a line is refused
    EventFollower resumed(path, 8);
    EXPECT_EQ(resumed.read().front().text, "{\"b\":2}");
    EXPECT_THROW(EventFollower(path, 5), ConfigError);
    EXPECT_THROW(EventFollower(path, 1000), ConfigError);
}

TEST(AttachFollower, ReadsABacklogInPiecesOfAboutMaxBytes) {
    // The app follows a run's backlog a few hundred KiB at a time (issue 48: a 4 MiB read became
    // ~25 MB of JSON objects at once); every event comes, in order, each exactly once.
    TempDir tmp;
    const std::string dir = tmp.path();
    {
        std::ofstream f(dir + "/events.jsonl");
        for (int i = 0; i < 20000; ++i)
            f << R"({"kind":"metrics","step":)" << i << R"(,"t":1000.5,"loss_d":0.25,"loss_g":1.5})"
              << "\n";
    }
    AttachFollower follower(dir, 0);
    std::vector<json> lines;
    int64_t next = 0, polls = 0;
    while (follower.poll(lines, 64 << 10)) {
        ++polls;
        size_t events = 0;
        for (const json& l : lines) {
            if (!l.contains("event")) continue;
            ++events;
            EXPECT_EQ(l["event"]["step"].get<int64_t>(), next);
            ++next;
        }
        EXPECT_LE(events * 75, size_t{128} << 10);  // one 64 KiB read, or two: not the whole file
        lines.clear();
    }
    EXPECT_EQ(next, 20000);
    EXPECT_GT(polls, 10);
    ASSERT_EQ(lines.size(), 2u);  // then the live line, and the end line (no trainer holds the run)
    EXPECT_EQ(lines[0].value("live", false), true);
    EXPECT_EQ(lines[0].value("offset", int64_t{0}), follower.offset());
}

TEST(EventLog, CutsATornLineLeftByACrashBeforeAppending) {
    TempDir tmp;
    const std::string path = tmp / "events.jsonl";
    std::ofstream(path) << "{\"kind\":\"metrics\"}\n{\"kind\":\"met";
    {
        EventLog log(path);
        log.append({{"kind", "status"}});
    }
    EventFollower f(path, 0);
    const auto lines = f.read();
    ASSERT_EQ(lines.size(), 2u);  // the fragment is cut: no broken line in the middle of the log
    EXPECT_EQ(json::parse(lines[0].text)["kind"], "metrics");
    EXPECT_EQ(json::parse(lines[1].text)["kind"], "status");
}
