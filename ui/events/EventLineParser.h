// Turns lines of events.jsonl and of the attach protocol (docs/attach-protocol.md) into an
// EventBatch: the typed events of the base schema (base/run/Events.h, read by its EventReader,
// nlohmann underneath) become float columns for the plots and the rarer fields the app shows
// (a 1,000,000-line run is about 250 MB). A line that is not a JSON object is counted and skipped.
// Stateless apart from counters and the reader's buffers; one parser per thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/run/Events.h"
#include "events/EventBatch.h"

namespace streetgan::ui {

class EventLineParser {
public:
    /// One events.jsonl line (no newline). Returns false when it is not a JSON object.
    bool parseEvent(std::string_view line, EventBatch& out);
    /// One attach protocol line: {"offset","end","event"}, live, end or reply. Returns false
    /// when it is not one.
    bool parseProtocol(std::string_view line, EventBatch& out);
    /// Every complete line of `data` as events.jsonl; `baseOffset` is the file offset of
    /// data[0]. Returns the bytes consumed (up to and including the last newline).
    size_t parseEventChunk(std::string_view data, int64_t baseOffset, EventBatch& out);

    /// One typed event (a TensorBoard run's, read without JSON: RunFileLoader).
    void add(const Event& event, EventBatch& out);

    int64_t badLines() const { return badLines_; }

private:
    EventReader reader_;
    int64_t badLines_ = 0;
};

}  // namespace streetgan::ui
