#include "base/follow/AttachFollower.h"

#include <unistd.h>

#include <exception>
#include <utility>

#include "base/daemon/ControlSocket.h"
#include "base/daemon/RunLock.h"
#include "base/follow/RunStatus.h"
#include "base/tensorboard/TensorBoardRun.h"
#include "base/util/Errors.h"

namespace streetgan {

AttachFollower::AttachFollower(const std::string& runDir, int64_t fromOffset) : runDir_(checked(runDir)) {
    if (!RunStatus::isRunDirectory(runDir_) && !RunLock::isHeld(runDir_)) {  // a TensorBoard run (checked())
        tbFiles_ = std::make_unique<LocalEventFiles>();
        followTensorBoard(*tbFiles_, fromOffset);
        return;
    }
    follower_ = std::make_unique<EventFollower>(runDir_ + "/events.jsonl", fromOffset);
    // Resuming past the last status event: start from the run's state as `ls` sees it now, so
    // the live and end lines name the real state; the events read update it.
    if (fromOffset > 0) lastStatus_ = RunStatus::read(runDir_).state;
    if (lastStatus_ == RunState::kNew) lastStatus_.clear();
}

AttachFollower::AttachFollower(EventFileSource& files, const std::string& runDir, int64_t fromOffset) : runDir_(runDir) {
    followTensorBoard(files, fromOffset);
}

void AttachFollower::followTensorBoard(EventFileSource& files, int64_t fromOffset) {
    if (fromOffset < 0) throw ConfigError("--from-offset must not be negative");
    tb_ = std::make_unique<TensorBoardFollower>(files, runDir_, static_cast<uint64_t>(fromOffset));
}

void AttachFollower::wait(std::chrono::milliseconds timeout) {
    if (tb_)
        tb_->wait(timeout);
    else
        follower_->wait(timeout);
}

int64_t AttachFollower::offset() const { return tb_ ? static_cast<int64_t>(tb_->offset()) : follower_->offset(); }

bool AttachFollower::pollTensorBoard(std::vector<nlohmann::json>& out) {
    std::vector<TensorBoardFollower::Item> items;
    const bool more = tb_->poll(items);
    for (const auto& item : items) out.push_back(attachEventJson(item.offset, item.end, toJson(item.event)));
    if (more) return true;
    if (!liveSent_) {  // the backlog was read (a writer that keeps appending does not hold this back)
        liveSent_ = true;
        out.push_back(attachLiveJson(tb_->offset(), TensorBoardRun::kState));
    }
    return false;
}

bool AttachFollower::poll(std::vector<nlohmann::json>& out, size_t maxBytes) {
    if (tb_) return pollTensorBoard(out);
    const bool alive = RunLock::isHeld(runDir_);  // before reading: a trainer gone now has written everything
    const auto lines = follower_->read(maxBytes);
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
        out.push_back(attachLiveJson(static_cast<uint64_t>(follower_->offset()), state));
    }
    if (!alive) {
        out.push_back(attachEndJson(static_cast<uint64_t>(follower_->offset()), state));
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
    if (!RunStatus::isAnyRun(runDir) && !RunLock::isHeld(runDir))
        throw IoError("'" + runDir +
                      "' is not a run directory (no run.json, events.jsonl or TensorBoard event file): check the path, or `streetgan-trainer ls` its parent");
    return runDir;
}

}  // namespace streetgan
