// The SSH connection of a remote attach cut mid-stream while a real training daemon appends
// events (issue 15): the remote `streetgan-trainer attach` killed (kill -9) twice on the test
// sshd, then the sshd process of the connection itself. RemoteAttach reconnects each time from
// the last offset it delivered; what it delivered is compared with the run's events.jsonl at the
// end: every line once, in order, with contiguous offsets (no gap, no duplicate). An attach left
// without its connection must end by itself, not linger on the host.
#include <signal.h>

#include <atomic>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/remote/RemoteAttach.h"
#include "support/CliRunner.h"
#include "support/RemoteTestBase.h"
#include "support/RunProbe.h"

using namespace streetgan;
using namespace streetgan::test;

namespace {

class AttachCut : public RemoteTest {
protected:
    void TearDown() override {
        if (const pid_t pid = trainerPidOf(run); processAlive(pid)) ::kill(pid, SIGKILL);
        RemoteTest::TearDown();
    }
    // The remote attach of the current connection, once it runs (0 after `seconds`).
    pid_t remoteAttach(double seconds = 60) const {
        pid_t found = 0;
        waitUntil(
            [&] {
                const auto pids = target->sessionProcessesWithArgument("attach");
                found = pids.size() == 1 ? pids.front() : 0;
                return found != 0;
            },
            seconds);
        return found;
    }

    CliRunner cli{tmp.path().string()};
    std::string run = tmp / "run";
};

}  // namespace

TEST_F(AttachCut, KilledRemoteAttachAndSshdSessionAreResumedWithNoGapAndNoDuplicate) {
    // A real daemon: an event per step, steadily, until stopped.
    const CliResult started = cli.run({"start",
                                       "--detach",
                                       "--run-dir",
                                       run,
                                       "--preset",
                                       "tiny-32",
                                       "--steps",
                                       "100000",
                                       "--batch",
                                       "4",
                                       "--log-every",
                                       "1",
                                       "--sample-every",
                                       "0",
                                       "--checkpoint-every",
                                       "50",
                                       "--device",
                                       "cpu",
                                       "--threads",
                                       "1",
                                       "--loader-threads",
                                       "1",
                                       "--synthetic-images",
                                       "4096"});
    ASSERT_EQ(started.code, 0) << started.err;

    AttachOptions a;
    a.run = run;
    a.remoteTrainer = STREETGAN_TRAINER;
    a.initialBackoffSeconds = 0.05;
    a.maxBackoffSeconds = 0.5;
    RemoteAttach attach(options(), a);
    std::mutex mutex;
    std::vector<AttachMessage> events;
    std::atomic<int> received{0};
    std::string endState;
    int reconnecting = 0;
    std::vector<std::string> cuts;  // what each cut killed, for the report
    pid_t orphan = 0;
    std::thread cutter([&] {
        auto after = [&](int count) { return waitUntil([&] { return received.load() >= count; }, 120); };
        // Each cut must cost the attach its connection: it connects again (and catches up).
        auto cut = [&](const std::string& what, const std::vector<pid_t>& pids) {
            const int before = attach.connections();
            EXPECT_FALSE(pids.empty()) << what << ": no such process under the sshd";
            for (pid_t p : pids) {
                if (p <= 0) {  // (kill(0) would hit this test's own process group)
                    ADD_FAILURE() << what << ": no such process under the sshd";
                    continue;
                }
                EXPECT_EQ(::kill(p, SIGKILL), 0) << what;
            }
            const bool reconnected = waitUntil([&] { return attach.connections() > before; }, 60);
            EXPECT_TRUE(reconnected) << "no new connection after killing " << what;
            cuts.push_back(what + (reconnected ? " (reconnected)" : " (NOT reconnected)"));
        };
        // Twice: the remote attach process, kill -9, while the trainer writes.
        for (int count : {20, 60}) {
            if (!after(count)) return attach.stop();
            cut("the remote attach", {remoteAttach()});
        }
        // Then the connection's sshd process: the attach under it loses its client.
        if (!after(100)) return attach.stop();
        orphan = remoteAttach();
        cut("the sshd session", target->connectionProcesses());
        if (!after(140)) return attach.stop();
        const CliResult stop = cli.run({"control", run, "stop"});
        EXPECT_EQ(stop.code, 0) << stop.err;
    });
    attach.run(
        [&](const AttachMessage& m) {
            std::lock_guard<std::mutex> lock(mutex);
            if (m.kind == AttachMessage::Kind::End) endState = m.state;
            if (m.kind != AttachMessage::Kind::Event) return;
            events.push_back(m);
            ++received;
        },
        [&](const AttachStatus& s) { reconnecting += s.state == AttachStatus::State::Reconnecting; });
    cutter.join();

    EXPECT_EQ(endState, "stopped");
    EXPECT_EQ(cuts.size(), 3u);
    EXPECT_GE(attach.connections(), 4);
    EXPECT_GE(reconnecting, 3);
    // The remote attach whose sshd went away ended by itself.
    EXPECT_TRUE(waitUntil([&] { return !processAlive(orphan); }, 30)) << "the attach of the cut connection (pid " << orphan << ") still runs";

    // Every line of events.jsonl arrived once, in order, offsets contiguous, up to the end.
    const std::string log = CliRunner::slurp(run + "/events.jsonl");
    uint64_t at = 0;
    size_t i = 0, mismatched = 0;
    for (; at < log.size() && i < events.size(); ++i) {
        const size_t nl = log.find('\n', at);
        ASSERT_NE(nl, std::string::npos);
        EXPECT_EQ(events[i].offset, at) << "gap or duplicate at event " << i;
        EXPECT_EQ(events[i].end, nl + 1) << "event " << i;
        if (nlohmann::json::parse(log.substr(at, nl - at)) != events[i].body) ++mismatched;
        at = nl + 1;
    }
    EXPECT_EQ(mismatched, 0u);
    EXPECT_EQ(i, events.size()) << "more events delivered than the log holds";
    EXPECT_EQ(at, log.size()) << "events missing at the end";
    std::string cutList;
    for (const auto& c : cuts) cutList += (cutList.empty() ? "" : ", ") + c;
    std::cout << "[ figures  ] cuts: " << cutList << "; connections " << attach.connections() << ", events delivered " << events.size() << " of "
              << readRawEvents(run).events.size() << " in events.jsonl, mismatched " << mismatched << std::endl;
}
