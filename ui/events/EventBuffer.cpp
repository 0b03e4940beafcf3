#include "events/EventBuffer.h"

namespace streetgan::ui {

void EventBuffer::append(EventBatch&& batch) {
    if (batch.empty()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (batch_.empty())
        batch_ = std::move(batch);
    else
        batch_.merge(std::move(batch));
    pending_.store(true, std::memory_order_release);
}

EventBatch EventBuffer::take() {
    std::lock_guard<std::mutex> lock(mutex_);
    EventBatch out = std::move(batch_);
    batch_ = EventBatch{};
    pending_.store(false, std::memory_order_release);
    return out;
}

}  // namespace streetgan::ui
