// The producer side of the attach protocol (docs/attach-protocol.md), shared by
// `streetgan-trainer attach` (which writes the lines to stdout, app/trainer/AttachCommand.cpp) and
// the desktop app's in-process follower (ui/runs/LocalAttachWorker): a run's events.jsonl from a
// byte offset as {"offset","end","event"} lines, then once the backlog is read the live line, and
// when no trainer holds the run lock any more the end line (with the state a reader reports: a
// last status of running or paused then means crashed). A TensorBoard run of another trainer
// (TensorBoardRun) gives its scalars and images as the same typed event lines, read by a
// TensorBoardFollower (offsets in its event files), with the state "tensorboard" and no end
// line: nothing says its writer is done. command() relays one control command
// line and gives the reply line. One thread per object; command() on any one thread per fd.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/follow/EventFollower.h"
#include "base/run/Events.h"
#include "base/tensorboard/LocalEventFiles.h"
#include "base/tensorboard/TensorBoardFollower.h"

namespace streetgan {

class AttachFollower {
public:
    /// IoError when `runDir` is no run directory; ConfigError when `fromOffset` is not 0 or the
    /// end of a line (EventFollower).
    AttachFollower(const std::string& runDir, int64_t fromOffset);
    /// A TensorBoard run read through `files` (SftpEventFiles: a host without the trainer, which
    /// RemoteAttach follows over SFTP); `files` must outlive this. ConfigError for a bad offset.
    AttachFollower(EventFileSource& files, const std::string& runDir, int64_t fromOffset);

    /// Appends the protocol lines available now to `out`. True when event lines were read (more
    /// of the backlog may follow: poll again at once); false when there was nothing new, then
    /// the live line is added once, and the end line when the trainer is gone (ended() is then
    /// true); wait() before the next poll. A backlog is read about `maxBytes` of events.jsonl at
    /// a time (each line becomes a JSON object of ~1 KB: a caller that keeps memory low passes less).
    bool poll(std::vector<nlohmann::json>& out, size_t maxBytes = size_t{4} << 20);
    bool ended() const { return ended_; }
    /// Blocks until the run's events change or `timeout` passes.
    void wait(std::chrono::milliseconds timeout);
    int64_t offset() const;

    /// Sends one command `line` (JSON, no newline) on the control socket at `socketPath` through
    /// `fd` (connected when < 0; closed and set to -1 when the trainer hangs up, so the next call
    /// reconnects to a restarted trainer; `buffer` holds its unread reply bytes) and returns the
    /// attach reply line: the trainer's reply, or {"ok":false,"error":...}.
    static nlohmann::json command(const std::string& socketPath, int& fd, std::string& buffer, const std::string& line);

private:
    static const std::string& checked(const std::string& runDir);

    void followTensorBoard(EventFileSource& files, int64_t fromOffset);
    bool pollTensorBoard(std::vector<nlohmann::json>& out);

    std::string runDir_;
    std::unique_ptr<EventFollower> follower_;   // our runs
    std::unique_ptr<LocalEventFiles> tbFiles_;  // a TensorBoard run
    std::unique_ptr<TensorBoardFollower> tb_;
    EventReader reader_;
    std::string lastStatus_;
    bool liveSent_ = false, ended_ = false;
};

}  // namespace streetgan
