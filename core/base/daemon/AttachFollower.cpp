#include "base/daemon/AttachFollower.h"

#include <unistd.h>

#include <exception>
#include <utility>

#include "base/daemon/ControlSocket.h"
#include "base/daemon/RunLock.h"
#include "base/daemon/RunStatus.h"
#include "base/util/Errors.h"

namespace streetgan {

AttachFollower::AttachFollower(const std::string& runDir, int64_t fromOffset)
    : runDir_(runDir), follower_(checked(runDir) + "/events.jsonl", fromOffset) {
    // Resuming past the last status event: start from the run's state as `ls` sees it now, so
    // the live and end lines name the real state; the events read update it.
    if (fromOffset > 0) lastStatus_ = RunStatus::read(runDir_).state;
    if (lastStatus_ == RunState::kNew) lastStatus_.clear();
}

bool AttachFollower::poll(std::vector<nlohmann::json>& out) {
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

nlohmann::json AttachFollower::command(const std::string& socketPath, int& fd, std::string& buffer, const std::string& line) {
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

const std::string& AttachFollower::checked(const std::string& runDir) {
    if (!RunStatus::isRunDirectory(runDir) && !RunLock::isHeld(runDir))
        throw IoError("'" + runDir + "' is not a run directory (no run.json or events.jsonl): check the path, or `streetgan-trainer ls` its parent");
    return runDir;
}

}  // namespace streetgan
