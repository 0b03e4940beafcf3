// Follows a run's events over SSH: runs `streetgan-trainer attach RUN --from-offset E` on an exec
// channel and parses the JSON lines of docs/attach-protocol.md. It tracks the `end` offset of
// the last event; when the connection drops it reconnects with bounded exponential backoff and
// re-runs attach from that offset, so the callback sees every event once, in order: no gap, no
// duplicate. Commands (pause, resume, ...) go to the remote attach's stdin.
//
// A host without streetgan-trainer (the shell cannot find it: exit 127) whose run is a
// TensorBoard run of another trainer is followed over SFTP instead (SftpEventFiles and
// TensorBoardFollower: the same lines as the remote attach would print, offsets in its event
// files, the same reconnect and resume); commands then get a refusal reply.
//
// Thread contract: run() blocks the calling thread (a worker thread in the app) and invokes
// every callback, and the SshOptions callbacks on reconnect, on that thread. sendCommand() and
// stop() may be called from any thread. One run() per object.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/remote/SshOptions.h"

namespace streetgan {

class SshSession;

struct AttachOptions {
    std::string run;                                  ///< run directory on the remote host
    std::string remoteTrainer = "streetgan-trainer";  ///< binary on the remote host (PATH or absolute)
    uint64_t fromOffset = 0;                          ///< 0, or the `end` of the last event received
    double seconds = 0;                               ///< > 0: return after this long (local clock)
    double initialBackoffSeconds = 0.5;               ///< first reconnect delay, doubled each failure
    double maxBackoffSeconds = 8;                     ///< bound of the delay
    int maxReconnects = 8;                            ///< consecutive failed reconnects before giving up
};

/// One line of the protocol, parsed.
struct AttachMessage {
    enum class Kind { Event, Live, Reply, End };
    Kind kind = Kind::Event;
    uint64_t offset = 0;    ///< Event: start of its line; Live/End: the offset reached
    uint64_t end = 0;       ///< Event: just after its newline (resume point)
    std::string state;      ///< Live/End: run state
    nlohmann::json body;    ///< Event: the event; Reply: the reply; Live/End: the whole line
    std::string line;       ///< the raw JSON line as received (no newline)
    double receivedAt = 0;  ///< wall clock seconds (same clock as events' "t")
};

/// Connection state changes, for status bars and logs.
struct AttachStatus {
    enum class State { Connecting, Attached, Reconnecting, Ended, Stopped };
    State state = State::Connecting;
    int attempt = 0;          ///< Reconnecting: consecutive failures so far (1 = first retry)
    double delaySeconds = 0;  ///< Reconnecting: wait before the next try
    std::string message;      ///< why (the error of the dropped connection)
};

class RemoteAttach {
public:
    using MessageCallback = std::function<void(const AttachMessage&)>;
    using StatusCallback = std::function<void(const AttachStatus&)>;

    RemoteAttach(SshOptions ssh, AttachOptions options);
    ~RemoteAttach();

    /// Connects, attaches and delivers messages until the run ends (End delivered), `seconds`
    /// pass, or stop() is called; reconnects on dropped connections. Returns normally in those
    /// cases. Throws HostKeyError/AuthError (never retried), RemoteError when the remote attach
    /// fails (its stderr line quoted; e.g. no such run), ConnectionLostError after
    /// `maxReconnects` consecutive failures.
    void run(const MessageCallback& onMessage, const StatusCallback& onStatus = {});
    /// Queues one JSON command (e.g. {"cmd":"pause"}) for the remote attach's stdin; sent as
    /// soon as connected. Replies arrive as Reply messages. Thread-safe.
    void sendCommand(const nlohmann::json& command);
    /// Makes run() return soon (within ~50 ms, or at once while waiting to reconnect). Thread-safe.
    void stop();
    /// The offset to resume from: the `end` of the last event delivered. Thread-safe.
    uint64_t resumeOffset() const { return offset_.load(); }
    /// Connections made so far (1 + successful reconnects). Thread-safe.
    int connections() const { return connections_.load(); }
    /// Test hook: drops the current connection as a network failure would (thread-safe; takes
    /// effect on the run() thread within ~50 ms).
    void dropConnectionForTest() { dropRequested_.store(true); }

    /// Parses one protocol line (public for tests). Throws RemoteError on a malformed line.
    static AttachMessage parseLine(const std::string& line);

private:
    enum class Outcome { Ended, Stopped, TimeUp, Dropped };
    Outcome attachOnce(SshSession& session, const MessageCallback& onMessage, std::string& why);
    Outcome followOverSftp(SshSession& session, const MessageCallback& onMessage, std::string& why);
    /// Runs the checks of every turn of a follow loop: stop, deadline, the test's drop.
    std::optional<Outcome> turn(SshSession& session);
    bool waitBackoff(double seconds);

    SshOptions ssh_;
    AttachOptions options_;
    std::atomic<uint64_t> offset_;
    std::atomic<int> connections_{0};
    std::atomic<bool> stop_{false}, dropRequested_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::string> commands_;
    double deadline_ = 0;      // steady seconds; 0: none
    bool progressed_ = false;  // the current connection delivered a line (run() thread only)
    bool overSftp_ = false;    // the host has no trainer: follow its TensorBoard run over SFTP
};

}  // namespace streetgan
