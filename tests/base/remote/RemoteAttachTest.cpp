// RemoteAttach over a real sshd, against fake_trainer.py's attach (the transport alone; the real
// daemon is exercised in RemoteDaemonTest): latency, commands, dropped connections resumed with
// no gap and no duplicate, bounded retries.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "base/remote/RemoteAttach.h"
#include "base/remote/RemoteError.h"
#include "support/RemoteTestBase.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {
double wallNow() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }
}  // namespace

class RemoteAttachTest : public RemoteTest {
protected:
    void SetUp() override {
        RemoteTest::SetUp();
        run = tmp / "run dir; with 'quotes'";  // the run name goes through the remote shell
        std::filesystem::create_directories(run);
        std::ofstream(run + "/events.jsonl").close();
    }
    void TearDown() override {
        stopWriting = true;
        finish();
        if (writer.joinable()) writer.join();
    }
    AttachOptions attachOptions() const {
        AttachOptions a;
        a.run = run;
        a.remoteTrainer = STREETGAN_FAKE_TRAINER;
        a.initialBackoffSeconds = 0.05;
        a.maxBackoffSeconds = 0.5;
        return a;
    }
    void appendEvent(int step) {
        std::ofstream f(run + "/events.jsonl", std::ios::app);
        f << nlohmann::json({{"t", wallNow()}, {"step", step}, {"kind", "metrics"}, {"loss_d", 0.5}}).dump() << "\n";
    }
    /// Writes `count` events, one every `everyMs`, on a thread; then marks the run finished.
    void writeEvents(int count, int everyMs, bool thenFinish = true) {
        writer = std::thread([=] {
            for (int i = 0; i < count && !stopWriting.load(); ++i) {
                appendEvent(i);
                std::this_thread::sleep_for(std::chrono::milliseconds(everyMs));
            }
            if (thenFinish) finish();
        });
    }
    void finish() { std::ofstream(run + "/done") << "finished"; }

    /// Checks events are steps 0..n-1 once each, in order, with contiguous offsets from 0.
    static void expectNoGapNoDuplicate(const std::vector<AttachMessage>& events, int n) {
        ASSERT_EQ(static_cast<int>(events.size()), n);
        uint64_t expect = 0;
        for (int i = 0; i < n; ++i) {
            EXPECT_EQ(events[i].body["step"], i);
            EXPECT_EQ(events[i].offset, expect) << "gap or overlap before step " << i;
            expect = events[i].end;
        }
    }

    std::string run;
    std::thread writer;
    std::atomic<bool> stopWriting{false};
};

TEST_F(RemoteAttachTest, DeliversBacklogThenEachLiveEventBeforeTheNextIsWritten) {
    // Live delivery shown by its condition, not by a latency bound: each live event is written
    // only once the one before it has arrived, so an attach that batched or waited for the run's
    // end would never deliver them all. (The latency itself is measured in bench/, see
    // bench/README.md, "remote attach".)
    for (int i = 0; i < 5; ++i) appendEvent(i);  // backlog
    RemoteAttach attach(options(), attachOptions());
    std::vector<AttachMessage> events;
    std::atomic<int> received{0};
    std::atomic<bool> live{false};
    bool ended = false;
    std::thread t([&] {
        waitFor([&] { return live.load(); }, 120);
        for (int i = 5; i < 40; ++i) {
            appendEvent(i);
            waitFor([&] { return received.load() > i; }, 120);
        }
        finish();
    });
    attach.run([&](const AttachMessage& m) {
        if (m.kind == AttachMessage::Kind::Event) {
            events.push_back(m);
            ++received;
        }
        if (m.kind == AttachMessage::Kind::Live) {
            EXPECT_EQ(events.size(), 5u);
            live = true;
        }
        if (m.kind == AttachMessage::Kind::End) {
            ended = true;
            EXPECT_EQ(m.state, "finished");
        }
    });
    t.join();
    EXPECT_TRUE(ended);
    expectNoGapNoDuplicate(events, 40);
    for (int i = 5; i < 40; ++i) EXPECT_GE(events[i].receivedAt, events[i].body["t"].get<double>()) << i;
    EXPECT_EQ(attach.resumeOffset(), events.back().end);
    EXPECT_EQ(attach.connections(), 1);
}

TEST_F(RemoteAttachTest, ResumesFromAnOffsetWithoutRepeatingEarlierEvents) {
    for (int i = 0; i < 10; ++i) appendEvent(i);
    finish();
    std::vector<AttachMessage> all;
    RemoteAttach(options(), attachOptions()).run([&](const AttachMessage& m) {
        if (m.kind == AttachMessage::Kind::Event) all.push_back(m);
    });
    ASSERT_EQ(all.size(), 10u);
    AttachOptions a = attachOptions();
    a.fromOffset = all[6].end;
    std::vector<int> steps;
    RemoteAttach(options(), a).run([&](const AttachMessage& m) {
        if (m.kind == AttachMessage::Kind::Event) steps.push_back(m.body["step"]);
    });
    EXPECT_EQ(steps, (std::vector<int>{7, 8, 9}));
}

TEST_F(RemoteAttachTest, ReconnectsAfterTheServerDropsTheConnectionWithNoGapOrDuplicate) {
    // The run ends only after the second kill and the last event: however far the reader lags
    // behind the writer on a busy machine, both kills land on a live stream (three connections).
    writeEvents(150, 15, /*thenFinish=*/false);
    RemoteAttach attach(options(), attachOptions());
    std::vector<AttachMessage> events;
    std::vector<AttachStatus> statuses;
    std::atomic<int> received{0}, onConnection{0};  // onConnection: the one that delivered the latest event
    std::thread killer([&] {
        // Kill the sshd processes serving us twice, each time on a connection that has delivered an
        // event (events buffered before a kill still arrive on the old one), then end the run only
        // once the third connection is up: however the machine schedules us, three connections.
        for (int n : {1, 2}) {
            waitFor([&] { return onConnection.load() >= n && received.load() >= 30 * n; }, 120);
            target->killSessions();
        }
        waitFor([&] { return attach.connections() >= 3; }, 120);
        writer.join();  // every event written, then the end
        finish();
    });
    attach.run(
        [&](const AttachMessage& m) {
            if (m.kind == AttachMessage::Kind::Event) {
                events.push_back(m);
                ++received;
                onConnection = attach.connections();
            }
        },
        [&](const AttachStatus& s) { statuses.push_back(s); });
    killer.join();
    expectNoGapNoDuplicate(events, 150);
    EXPECT_GE(attach.connections(), 3);
    int reconnecting = 0;
    for (const auto& s : statuses) reconnecting += s.state == AttachStatus::State::Reconnecting;
    EXPECT_GE(reconnecting, 2);
    EXPECT_EQ(statuses.back().state, AttachStatus::State::Ended);
}

TEST_F(RemoteAttachTest, ReconnectsThroughTheJumpHostWhenTheJumpDrops) {
    startJump();
    SshOptions o = options();
    o.jump = "127.0.0.1:" + std::to_string(jump->port());
    writeEvents(100, 15, /*thenFinish=*/false);  // ends after both drops, as in the test above
    RemoteAttach attach(o, attachOptions());
    std::vector<AttachMessage> events;
    std::atomic<int> received{0}, onConnection{0};
    std::thread killer([&] {
        waitFor([&] { return received.load() >= 30; }, 120);
        jump->killSessions();  // the jump host's side goes: the tunnel and the target session with it
        waitFor([&] { return onConnection.load() >= 2; }, 120);
        attach.dropConnectionForTest();  // and a local network failure
        waitFor([&] { return attach.connections() >= 3; }, 120);
        writer.join();
        finish();
    });
    attach.run([&](const AttachMessage& m) {
        if (m.kind == AttachMessage::Kind::Event) {
            events.push_back(m);
            ++received;
            onConnection = attach.connections();
        }
    });
    killer.join();
    expectNoGapNoDuplicate(events, 100);
    EXPECT_GE(attach.connections(), 3);
}

TEST_F(RemoteAttachTest, CommandsGoToTheRemoteAttachAndRepliesComeBack) {
    RemoteAttach attach(options(), attachOptions());
    std::vector<std::string> replies;
    attach.sendCommand({{"cmd", "pause"}});
    attach.run([&](const AttachMessage& m) {
        if (m.kind == AttachMessage::Kind::Reply) {
            replies.push_back(m.body["cmd"]);
            if (replies.size() == 1) attach.sendCommand({{"cmd", "set-lr"}, {"value", 0.0001}});
            if (replies.size() == 2) finish();
        }
    });
    EXPECT_EQ(replies, (std::vector<std::string>{"pause", "set-lr"}));
    const std::string log = slurp(run + "/commands.log");
    EXPECT_NE(log.find(R"({"cmd":"pause"})"), std::string::npos) << log;
    EXPECT_NE(log.find(R"("value":0.0001)"), std::string::npos) << log;
}

TEST_F(RemoteAttachTest, StopAndSecondsEndTheFollow) {
    // Each would otherwise follow the unfinished run for ever (ctest's timeout would report it).
    AttachOptions a = attachOptions();
    a.seconds = 1.0;
    const auto t0 = std::chrono::steady_clock::now();
    RemoteAttach(options(), a).run([](const AttachMessage&) {});
    EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);  // not before its time
    RemoteAttach attach(options(), attachOptions());
    std::atomic<bool> live{false};
    std::thread stopper([&] {
        waitFor([&] { return live.load(); }, 120);  // stopped while it follows
        attach.stop();
    });
    attach.run([&](const AttachMessage& m) { live = live || m.kind == AttachMessage::Kind::Live; });
    stopper.join();
    EXPECT_TRUE(live.load());
}

TEST_F(RemoteAttachTest, KeepalivesOnAnIdleStreamDoNotDisturbIt) {
    SshOptions o = options();
    o.keepaliveSeconds = 1;  // several keepalives while nothing happens
    RemoteAttach attach(o, attachOptions());
    std::vector<AttachMessage> events;
    std::thread late([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(3500));
        appendEvent(0);
        finish();
    });
    attach.run([&](const AttachMessage& m) {
        if (m.kind == AttachMessage::Kind::Event) events.push_back(m);
    });
    late.join();
    expectNoGapNoDuplicate(events, 1);
    EXPECT_EQ(attach.connections(), 1);
}

TEST_F(RemoteAttachTest, AFailingRemoteAttachIsReportedNotRetried) {
    AttachOptions a = attachOptions();
    a.run = tmp / "no such run";
    try {
        RemoteAttach(options(), a).run([](const AttachMessage&) {});
        FAIL();
    } catch (const ConnectionLostError& e) {
        FAIL() << "retried: " << e.what();
    } catch (const RemoteError& e) {
        EXPECT_NE(std::string(e.what()).find("no run directory"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("exit 5"), std::string::npos) << e.what();
    }
}

TEST_F(RemoteAttachTest, GivesUpAfterTheConfiguredReconnectsAndSaysWhereToResume) {
    writeEvents(1000, 10, false);
    AttachOptions a = attachOptions();
    a.maxReconnects = 2;
    RemoteAttach attach(options(), a);
    std::atomic<int> received{0};
    std::vector<double> delays;
    std::thread killer([&] {
        waitFor([&] { return received.load() >= 10; }, 60);
        target.reset();  // the server goes away for good
    });
    try {
        attach.run([&](const AttachMessage& m) { received += m.kind == AttachMessage::Kind::Event; },
                   [&](const AttachStatus& s) {
                       if (s.state == AttachStatus::State::Reconnecting) delays.push_back(s.delaySeconds);
                   });
        FAIL() << "no error after the server vanished";
    } catch (const ConnectionLostError& e) {
        EXPECT_NE(std::string(e.what()).find("--from-offset " + std::to_string(attach.resumeOffset())), std::string::npos) << e.what();
    }
    killer.join();
    stopWriting = true;
    ASSERT_EQ(delays.size(), 2u);
    EXPECT_DOUBLE_EQ(delays[0], 0.05);
    EXPECT_DOUBLE_EQ(delays[1], 0.1);  // exponential
}
