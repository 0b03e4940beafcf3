// events.jsonl: one JSON object per line, appended line by line with one write(2) each (never
// rewritten). The events are those of base/run/Events.h. Thread-safe: append() may be called
// from any thread.
//
// The file only ever holds complete lines, so readers never see a torn line followed by more
// lines: an append that fails part-way (a full disk, a file-size limit) is cut back to where it
// started before the error is thrown, and opening the log cuts a torn last line that a killed
// writer left (kill -9, power loss) instead of ending it. Cutting back only removes bytes after
// the last newline, which no reader has taken as an event (EventFollower and RunStatus read
// complete lines only), so their offsets stay valid.
#pragma once

#include <mutex>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "base/run/Events.h"

namespace streetgan {

class EventLog {
public:
    /// Opens (creates) `path` for appending and cuts a torn last line; throws IoError naming it.
    explicit EventLog(const std::string& path);
    ~EventLog();
    EventLog(const EventLog&) = delete;
    EventLog& operator=(const EventLog&) = delete;

    /// Appends `event` plus "t" (wall seconds since the epoch) when absent, in one write to the
    /// OS. `durable` also fsyncs (status changes, checkpoints, errors). Throws IoError naming the
    /// file and the reason (a full disk says so) after cutting the partial line back.
    void append(nlohmann::json event, bool durable = false);
    /// The same for a typed event (its to_json form).
    void append(const Event& event, bool durable = false);
    const std::string& path() const { return path_; }
    /// Seconds since the Unix epoch, with sub-millisecond resolution.
    static double now();

private:
    std::string path_;
    int fd_ = -1;
    std::mutex mutex_;
};

}  // namespace streetgan
