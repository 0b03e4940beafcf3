#include "trainer/AttachCommand.h"

#include <poll.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/daemon/ControlSocket.h"
#include "base/daemon/EventFollower.h"
#include "base/daemon/RunLock.h"
#include "base/daemon/RunStatus.h"
#include "base/run/Events.h"
#include "base/util/Errors.h"
#include "trainer/FiniteNumber.h"

namespace streetgan {
namespace {

using Clock = std::chrono::steady_clock;

// stdout shared by the follower and the command relay; a failed write (the client went away)
// ends the attach quietly.
class LineWriter {
public:
    bool write(const nlohmann::json& j) {
        const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        std::lock_guard<std::mutex> lock(mutex_);
        if (failed_) return false;
        failed_ = std::fwrite(line.data(), 1, line.size(), stdout) != line.size() || std::fflush(stdout) != 0;
        return !failed_;
    }
    bool failed() {
        std::lock_guard<std::mutex> lock(mutex_);
        return failed_;
    }

private:
    std::mutex mutex_;
    bool failed_ = false;
};

// Relays stdin lines to the control socket (one connection, reopened when the trainer restarts).
void relayCommands(const std::string& socketPath, LineWriter& out, const std::atomic<bool>& done) {
    std::string input, line;
    int fd = -1;
    std::string replyBuffer;
    bool eof = false;
    while (!done.load() && !eof) {
        pollfd p{STDIN_FILENO, POLLIN, 0};
        const int r = ::poll(&p, 1, 200);
        if (r <= 0) continue;
        char chunk[4096];
        const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (n <= 0)
            eof = true;
        else
            input.append(chunk, static_cast<size_t>(n));
        for (size_t nl; (nl = input.find('\n')) != std::string::npos;) {
            line = input.substr(0, nl);
            input.erase(0, nl + 1);
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            nlohmann::json reply;
            try {
                if (fd < 0) fd = ControlSocket::connectTo(socketPath);
                std::string text;
                if (!ControlSocket::sendAll(fd, line + "\n") || !ControlSocket::readLine(fd, replyBuffer, text, 10000)) {
                    ::close(fd);
                    fd = -1;
                    replyBuffer.clear();
                    throw IoError("the trainer closed the control connection");
                }
                reply = nlohmann::json::parse(text, nullptr, false);
                if (reply.is_discarded()) reply = {{"ok", false}, {"error", "malformed reply from the trainer"}};
            } catch (const std::exception& e) {
                reply = {{"ok", false}, {"error", e.what()}};
            }
            if (!out.write(attachReplyJson(std::move(reply)))) eof = true;
        }
    }
    if (fd >= 0) ::close(fd);
}

}  // namespace

CLI::App* AttachCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("attach", "Print a run's events, then follow them; relay JSON commands from stdin");
    a->add_option("run", runDir_, "Run directory")->required();
    a->add_option("--from-offset", fromOffset_, "Byte offset to start from: 0, or the \"end\" of the last event received")->check(CLI::NonNegativeNumber);
    a->add_option("--seconds", seconds_, "Stop following after this many seconds (0: until the run ends)")->check(FiniteNumber())->check(CLI::Range(0.0, 1e9));
    return a;
}

int AttachCommand::execute() {
    if (!RunStatus::isRunDirectory(runDir_) && !RunLock::isHeld(runDir_))
        throw IoError("'" + runDir_ + "' is not a run directory (no run.json or events.jsonl): check the path, or `streetgan-trainer ls` its parent");
    std::signal(SIGPIPE, SIG_IGN);
    EventFollower follower(runDir_ + "/events.jsonl", fromOffset_);
    LineWriter out;
    std::atomic<bool> done{false};
    std::thread relay([&] { relayCommands(ControlSocket::pathIn(runDir_), out, done); });
    struct Joiner {
        std::atomic<bool>& done;
        std::thread& t;
        ~Joiner() {
            done = true;
            t.join();
        }
    } joiner{done, relay};

    const bool bounded = seconds_ > 0;
    const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(seconds_ * 1000));
    // Resuming past the last status event: start from the run's state as `ls` sees it now, so
    // the live and end lines name the real state; the events read below update it.
    std::string lastStatus = fromOffset_ > 0 ? RunStatus::read(runDir_).state : std::string();
    if (lastStatus == RunState::kNew) lastStatus.clear();
    bool liveSent = false;
    EventReader reader;
    for (;;) {
        const bool alive = RunLock::isHeld(runDir_);  // before reading: a trainer gone now has written everything
        const auto lines = follower.read();
        for (const EventLine& l : lines) {
            ParsedEvent parsed = reader.read(l.text);
            if (!parsed.ok()) continue;  // a torn line left by a crash
            if (const auto* status = std::get_if<StatusEvent>(&parsed.event)) lastStatus = status->state;
            // The event as read: the schema keeps the members it does not name, so nothing is lost.
            if (!out.write(attachEventJson(static_cast<uint64_t>(l.offset), static_cast<uint64_t>(l.end), toJson(parsed.event)))) return 0;
        }
        if (!lines.empty()) continue;  // more backlog may follow
        const std::string state = RunStatus::effectiveState(lastStatus, alive);
        if (!liveSent) {
            liveSent = true;
            if (!out.write(attachLiveJson(static_cast<uint64_t>(follower.offset()), state))) return 0;
        }
        if (!alive) {
            out.write(attachEndJson(static_cast<uint64_t>(follower.offset()), state));
            return 0;
        }
        if (out.failed()) return 0;
        // The reader went away (an SSH client that dropped closes our stdout pipe): end now, not
        // at the next event, which on a paused run may be hours away.
        pollfd hangup{STDOUT_FILENO, 0, 0};
        if (::poll(&hangup, 1, 0) > 0 && (hangup.revents & (POLLERR | POLLHUP))) return 0;
        auto wait = std::chrono::milliseconds(250);
        if (bounded) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0) return 0;
            wait = std::min(wait, left);
        }
        follower.wait(wait);
    }
}

}  // namespace streetgan
