#include "base/serve/RenderQueue.h"

namespace streetgan {

RenderQueue::RenderQueue(int workers, size_t capacity, std::function<void(Job&)> render, std::function<void(Job&)> finished)
    : capacity_(capacity), render_(std::move(render)), finished_(std::move(finished)) {
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

RenderQueue::~RenderQueue() { shutdown(); }

bool RenderQueue::push(Job job) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        // A free worker takes the job at once: the capacity counts jobs that have to wait.
        const size_t freeWorkers = workers_.size() - static_cast<size_t>(running_);
        if (stopping_ || jobs_.size() >= capacity_ + freeWorkers) return false;
        job.queuedAt = Clock::now();
        jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
    return true;
}

std::vector<RenderQueue::Job> RenderQueue::takeExpired(Clock::time_point cutoff) {
    std::vector<Job> out;
    std::lock_guard<std::mutex> lock(mutex_);
    while (!jobs_.empty() && jobs_.front().queuedAt < cutoff) {
        out.push_back(std::move(jobs_.front()));
        jobs_.pop_front();
    }
    return out;
}

size_t RenderQueue::waiting() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return jobs_.size();
}

int RenderQueue::running() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_;
}

bool RenderQueue::idle() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return jobs_.empty() && running_ == 0;
}

void RenderQueue::shutdown() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_)
        if (t.joinable()) t.join();
}

void RenderQueue::work() {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
            if (jobs_.empty()) return;  // stopping, and every queued job has run
            job = std::move(jobs_.front());
            jobs_.pop_front();
            ++running_;
        }
        render_(job);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            --running_;
        }
        finished_(job);
    }
}

}  // namespace streetgan
