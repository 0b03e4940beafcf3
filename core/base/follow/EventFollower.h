// Reads events.jsonl from a byte offset and follows it as the trainer appends: complete lines
// only (a torn last line waits for its newline), each with its byte range, so a reader that
// reattaches with the `end` of the last line it got sees no gap and no duplicate. Waits with
// inotify, so a new line is seen within milliseconds. One thread; not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace streetgan {

struct EventLine {
    int64_t offset = 0;  ///< byte offset of the line's first byte
    int64_t end = 0;     ///< byte offset just after its newline
    std::string text;    ///< without the newline
};

class EventFollower {
public:
    /// `fromOffset` must be 0 or the end of a line of `path` (else ConfigError naming it); the
    /// file may not exist yet (a run that is starting).
    EventFollower(std::string path, int64_t fromOffset);
    ~EventFollower();
    EventFollower(const EventFollower&) = delete;
    EventFollower& operator=(const EventFollower&) = delete;

    /// The complete lines written since the last call (at most `maxBytes` worth, about).
    std::vector<EventLine> read(size_t maxBytes = 4 << 20);
    /// Blocks until the file changes or `timeout` passes.
    void wait(std::chrono::milliseconds timeout);
    /// Where the next line starts.
    int64_t offset() const { return offset_; }

private:
    bool open();

    std::string path_;
    int64_t offset_;
    int fd_ = -1;
    int inotify_ = -1;
};

}  // namespace streetgan
