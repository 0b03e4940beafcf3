#include "ml/checkpoint/CheckpointWriter.h"

namespace streetgan {

CheckpointWriter::CheckpointWriter() : thread_([this] { run(); }) {}

CheckpointWriter::~CheckpointWriter() {
    {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return !pending_ && !busy_; });
        stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void CheckpointWriter::submit(CheckpointData data, std::string path, int64_t tag) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return !pending_ && !busy_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    pending_ = std::move(data);
    pendingPath_ = std::move(path);
    pendingTag_ = tag;
    lock.unlock();
    cv_.notify_all();
}

std::vector<int64_t> CheckpointWriter::takeLocked(std::unique_lock<std::mutex>&) {
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return std::exchange(done_, {});
}

std::vector<int64_t> CheckpointWriter::poll() {
    std::unique_lock<std::mutex> lock(mutex_);
    return takeLocked(lock);
}

std::vector<int64_t> CheckpointWriter::finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return !pending_ && !busy_; });
    return takeLocked(lock);
}

void CheckpointWriter::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        cv_.wait(lock, [&] { return stopping_ || pending_; });
        if (!pending_) return;  // stopping, nothing left
        CheckpointData data = std::move(*pending_);
        pending_.reset();
        const std::string path = pendingPath_;
        const int64_t tag = pendingTag_;
        busy_ = true;
        lock.unlock();
        std::exception_ptr failure;
        try {
            Checkpoint::save(data, path);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        busy_ = false;
        if (failure)
            error_ = failure;
        else
            done_.push_back(tag);
        cv_.notify_all();
    }
}

}  // namespace streetgan
