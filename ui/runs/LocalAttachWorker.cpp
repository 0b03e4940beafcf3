#include "runs/LocalAttachWorker.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "base/daemon/ControlSocket.h"
#include "base/daemon/RunLock.h"
#include "base/follow/AttachFollower.h"
#include "base/follow/RunStatus.h"
#include "base/remote/RemoteAttach.h"
#include "base/run/Events.h"
#include "base/util/Errors.h"
#include "events/EventBuffer.h"

namespace streetgan::ui {
namespace {

using S = AttachStatus::State;
constexpr size_t kPollBytes = size_t{256} << 10;

std::string line(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace

LocalAttachWorker::LocalAttachWorker(std::shared_ptr<EventBuffer> buffer, QString runDir) : buffer_(std::move(buffer)), runDir_(runDir.toStdString()) {}

LocalAttachWorker::~LocalAttachWorker() {
    stopping_ = true;
    if (follower_.joinable()) follower_.join();
    closeControl();
}

void LocalAttachWorker::start(qint64 fromOffset) {
    if (follower_.joinable()) return;
    stopping_ = false;
    follower_ = std::thread([this, fromOffset] { follow(fromOffset); });
}

// AttachCommand::execute's loop (the same AttachFollower), the lines going to the parser instead of stdout.
void LocalAttachWorker::follow(int64_t offset) {
    EventLineParser parser;
    int failures = 0;
    emit connectionChanged(static_cast<int>(S::Connecting), {});
    while (!stopping_) {
        try {
            AttachFollower stream(runDir_, offset);
            bool progressed = false;
            std::vector<nlohmann::json> lines;
            while (!stopping_) {
                lines.clear();
                // A backlog (a run opened late, a flood of events) in pieces of 256 KiB, ~1,000
                // events: read 4 MiB at a time, each line as a JSON object, this thread's heap
                // peaked at ~25 MB, which the allocator kept after (issue 48: the app's memory
                // stepped up with each burst and stayed there).
                const bool more = stream.poll(lines, kPollBytes);
                EventBatch batch;
                for (const auto& j : lines) parser.parseProtocol(line(j), batch);
                if (!batch.empty()) {
                    if (batch.endOffset >= 0) offset = batch.endOffset;
                    if (batch.live || (!progressed && batch.lines > 0)) {
                        failures = 0;
                        emit connectionChanged(static_cast<int>(S::Attached), {});
                    }
                    progressed = true;
                    const bool ended = batch.ended;
                    const QString endState = QString::fromStdString(batch.endState);
                    buffer_->append(std::move(batch));  // before the signal: the session drains, then reports
                    if (ended) {
                        emit connectionChanged(static_cast<int>(S::Ended), endState);
                        return;
                    }
                }
                if (!more) stream.wait(std::chrono::milliseconds(250));
            }
        } catch (const IoError& e) {
            if (!RunStatus::isAnyRun(runDir_) && !RunLock::isHeld(runDir_)) {  // not a run (any more): no retry
                emit failed(QString::fromStdString(e.what()));
                return;
            }
            if (!retryAfter(++failures, e.what(), offset)) return;
        } catch (const std::exception& e) {
            if (!retryAfter(++failures, e.what(), offset)) return;
        }
    }
}

bool LocalAttachWorker::retryAfter(int failures, const std::string& why, int64_t offset) {
    if (failures > 8) {
        emit failed(tr("Following the run keeps failing (%1); it is followed no more.").arg(QString::fromStdString(why)));
        return false;
    }
    const int delay = std::min(8000, 250 << std::min(failures, 5));
    emit connectionChanged(static_cast<int>(S::Reconnecting),
                           tr("reading the run failed (%1); retrying from byte %2").arg(QString::fromStdString(why)).arg(offset));
    for (int waited = 0; waited < delay && !stopping_; waited += 50) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return !stopping_;
}

void LocalAttachWorker::sendCommand(const QByteArray& json) {
    // As the attach child relayed its stdin: the reply, or {"ok":false,"error":...} when the
    // trainer is not there or hung up.
    EventBatch batch;
    replyParser_.parseProtocol(line(AttachFollower::command(ControlSocket::pathIn(runDir_), controlFd_, replyBuffer_, json.toStdString())), batch);
    buffer_->append(std::move(batch));
}

void LocalAttachWorker::closeControl() {
    if (controlFd_ >= 0) ::close(controlFd_);
    controlFd_ = -1;
    replyBuffer_.clear();
}

void LocalAttachWorker::stop() {
    stopping_ = true;
    if (follower_.joinable()) follower_.join();
    closeControl();
    emit connectionChanged(static_cast<int>(S::Stopped), {});
}

}  // namespace streetgan::ui
