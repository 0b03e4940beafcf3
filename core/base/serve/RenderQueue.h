// The gallery server's render workers and the short queue in front of them: `workers` threads
// (one per render slot) take jobs first in, first out; at most `capacity` jobs wait. A job that
// finds the queue full is refused at once (the caller answers 503); a job that waited too long is
// taken back by the caller (takeExpired) and answered 503 too, so no client waits without bound.
// Thread contract: push/takeExpired/waiting/running from any thread; `render` and then `finished`
// run on the workers (`finished` once the worker counts as free again, so that whoever learns of
// the answer there finds the slot free);
// shutdown() (also the destructor) lets the queued jobs finish and joins the workers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/serve/GalleryRoutes.h"

namespace streetgan {

class RenderQueue {
public:
    using Clock = std::chrono::steady_clock;
    struct Job {
        uint64_t connection = 0;  ///< whose request (the connection loop's id)
        std::string request;      ///< the complete request bytes
        bool closeAfter = false;
        std::string peerIp;
        int peerPort = 0;
        Clock::time_point queuedAt;
        GalleryRoutes::Answer answer;  ///< filled by `render`
    };

    RenderQueue(int workers, size_t capacity, std::function<void(Job&)> render, std::function<void(Job&)> finished);
    ~RenderQueue();
    RenderQueue(const RenderQueue&) = delete;
    RenderQueue& operator=(const RenderQueue&) = delete;

    /// Queues `job` (stamping queuedAt); false when `capacity` jobs wait already or after shutdown.
    bool push(Job job);
    /// Removes and returns the waiting jobs queued before `cutoff` (the oldest first).
    std::vector<Job> takeExpired(Clock::time_point cutoff);
    size_t waiting() const;
    int running() const;
    /// True when no job waits or runs.
    bool idle() const;
    void shutdown();

private:
    void work();

    size_t capacity_;
    std::function<void(Job&)> render_, finished_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;
    std::vector<std::thread> workers_;
    int running_ = 0;
    bool stopping_ = false;
};

}  // namespace streetgan
