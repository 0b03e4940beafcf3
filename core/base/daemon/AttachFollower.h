// The producer side of the attach protocol (docs/attach-protocol.md), shared by
// `streetgan-trainer attach` (which writes the lines to stdout, app/trainer/AttachCommand.cpp) and
// the desktop app's in-process follower (ui/runs/LocalAttachWorker): a run's events.jsonl from a
// byte offset as {"offset","end","event"} lines, then once the backlog is read the live line, and
// when no trainer holds the run lock any more the end line (with the state a reader reports: a
// last status of running or paused then means crashed). command() relays one control command
// line and gives the reply line. One thread per object; command() on any one thread per fd.
// Header-only because core/base's source list (core/base/CMakeLists.txt) is the lead's to edit;
// the bodies can move to an AttachFollower.cpp unchanged.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/daemon/ControlSocket.h"
#include "base/daemon/EventFollower.h"
#include "base/daemon/RunLock.h"
#include "base/daemon/RunStatus.h"
#include "base/run/Events.h"
#include "base/util/Errors.h"

namespace streetgan {

class AttachFollower {
public:
    /// IoError when `runDir` is no run directory; ConfigError when `fromOffset` is not 0 or the
    /// end of a line (EventFollower).
    AttachFollower(const std::string& runDir, int64_t fromOffset) : runDir_(runDir), follower_(checked(runDir) + "/events.jsonl", fromOffset) {
        // Resuming past the last status event: start from the run's state as `ls` sees it now, so
        // the live and end lines name the real state; the events read update it.
        if (fromOffset > 0) lastStatus_ = RunStatus::read(runDir_).state;
        if (lastStatus_ == RunState::kNew) lastStatus_.clear();
    }

    /// Appends the protocol lines available now to `out`. True when event lines were read (more
    /// of the backlog may follow: poll again at once); false when there was nothing new, then
    /// the live line is added once, and the end line when the trainer is gone (ended() is then
    /// true); wait() before the next poll.
    bool poll(std::vector<nlohmann::json>& out) {
        const bool alive = RunLock::isHeld(runDir_);  // before reading: a trainer gone now has written everything
        const auto lines = follower_.read();
        for (const EventLine& l : lines) {
            ParsedEvent parsed = reader_.read(l.text);
            if (!parsed.ok()) continue;  // a torn line left by a crash
            if (const auto* status = std::get_if<StatusEvent>(&parsed.event)) lastStatus_ = status->state;
            // The event as read: the schema keeps the members it does not name, so nothing is lost.
            out.push_back(attachEventJson(static_cast<uint64_t>(l.offset), static_cast<uint64_t>(l.end), toJson(parsed.event)));
        }
        if (!lines.empty()) return true;
        const std::string state = RunStatus::effectiveState(lastStatus_, alive);
        if (!liveSent_) {
            liveSent_ = true;
            out.push_back(attachLiveJson(static_cast<uint64_t>(follower_.offset()), state));
        }
        if (!alive) {
            out.push_back(attachEndJson(static_cast<uint64_t>(follower_.offset()), state));
            ended_ = true;
        }
        return false;
    }
    bool ended() const { return ended_; }
    /// Blocks until events.jsonl changes or `timeout` passes.
    void wait(std::chrono::milliseconds timeout) { follower_.wait(timeout); }
    int64_t offset() const { return follower_.offset(); }

    /// Sends one command `line` (JSON, no newline) on the control socket at `socketPath` through
    /// `fd` (connected when < 0; closed and set to -1 when the trainer hangs up, so the next call
    /// reconnects to a restarted trainer; `buffer` holds its unread reply bytes) and returns the
    /// attach reply line: the trainer's reply, or {"ok":false,"error":...}.
    static nlohmann::json command(const std::string& socketPath, int& fd, std::string& buffer, const std::string& line) {
        nlohmann::json reply;
        try {
            if (fd < 0) fd = ControlSocket::connectTo(socketPath);
            std::string text;
            if (!ControlSocket::sendAll(fd, line + "\n") || !ControlSocket::readLine(fd, buffer, text, 10000)) {
                ::close(fd);
                fd = -1;
                buffer.clear();
                throw IoError("the trainer closed the control connection");
            }
            reply = nlohmann::json::parse(text, nullptr, false);
            if (reply.is_discarded()) reply = {{"ok", false}, {"error", "malformed reply from the trainer"}};
        } catch (const std::exception& e) {
            reply = {{"ok", false}, {"error", e.what()}};
        }
        return attachReplyJson(std::move(reply));
    }

private:
    static const std::string& checked(const std::string& runDir) {
        if (!RunStatus::isRunDirectory(runDir) && !RunLock::isHeld(runDir))
            throw IoError("'" + runDir + "' is not a run directory (no run.json or events.jsonl): check the path, or `streetgan-trainer ls` its parent");
        return runDir;
    }

    std::string runDir_;
    EventFollower follower_;
    EventReader reader_;
    std::string lastStatus_;
    bool liveSent_ = false, ended_ = false;
};

}  // namespace streetgan
