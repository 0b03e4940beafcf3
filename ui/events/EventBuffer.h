// The guarded hand-over between producers (file loader, attach workers: any thread) and the GUI
// thread, which drains it on a timer (RunSession::kFrameMs; PlotJuggler's pattern): producers never signal per
// event. Thread-safe.
#pragma once

#include <atomic>
#include <mutex>

#include "events/EventBatch.h"

namespace streetgan::ui {

class EventBuffer {
public:
    /// Appends a batch (moved from); cheap when the buffer is empty.
    void append(EventBatch&& batch);
    /// Everything appended since the last take(), in order.
    EventBatch take();
    bool hasPending() const { return pending_.load(std::memory_order_acquire); }

private:
    mutable std::mutex mutex_;
    EventBatch batch_;
    std::atomic<bool> pending_{false};
};

}  // namespace streetgan::ui
