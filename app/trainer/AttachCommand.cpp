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
#include "base/follow/AttachFollower.h"
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
            if (!out.write(AttachFollower::command(socketPath, fd, replyBuffer, line))) eof = true;
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
    std::signal(SIGPIPE, SIG_IGN);
    AttachFollower stream(runDir_, fromOffset_);  // the protocol's lines, shared with the desktop app
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
    std::vector<nlohmann::json> lines;
    for (;;) {
        lines.clear();
        const bool more = stream.poll(lines);  // event lines, then the live line once, the end line
        for (const auto& j : lines)
            if (!out.write(j)) return 0;
        if (more) continue;  // more backlog may follow
        if (stream.ended()) return 0;
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
        stream.wait(wait);
    }
}

}  // namespace streetgan
