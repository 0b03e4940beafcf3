// events.jsonl: one JSON object per line, appended and flushed line by line (never rewritten).
// The events are those of base/run/Events.h. Thread-safe: append() may be called from any
// thread. Readers tolerate a torn last line.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "base/run/Events.h"

namespace streetgan {

class EventLog {
public:
    /// Opens (creates) `path` for appending; throws IoError naming it.
    explicit EventLog(const std::string& path);
    ~EventLog();
    EventLog(const EventLog&) = delete;
    EventLog& operator=(const EventLog&) = delete;

    /// Appends `event` plus "t" (wall seconds since the epoch) when absent; flushes to the OS.
    /// `durable` also fsyncs (status changes, checkpoints, errors).
    void append(nlohmann::json event, bool durable = false);
    /// The same for a typed event (its to_json form).
    void append(const Event& event, bool durable = false);
    const std::string& path() const { return path_; }
    /// Seconds since the Unix epoch, with sub-millisecond resolution.
    static double now();

private:
    std::string path_;
    std::FILE* file_ = nullptr;
    std::mutex mutex_;
};

}  // namespace streetgan
