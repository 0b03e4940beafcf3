// Writes checkpoints on a thread of its own, so that a GPU does not wait for pickling, the disk and
// fsync: the training thread captures the state (copies on the host), hands it over and trains on.
// At most one write is in flight: a second submit() waits for the first (two copies of the state
// in memory at most). The writes are Checkpoint::save's (temp file, fsync, rename): a crash or a
// kill mid-write leaves the previous checkpoint. A failed write is rethrown, once, by the next
// poll(), submit() or finish() on the training thread, which also emits the events: nothing else
// crosses threads.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ml/checkpoint/Checkpoint.h"

namespace streetgan {

class CheckpointWriter {
public:
    CheckpointWriter();
    /// Waits for the write in flight (its failure is dropped: call finish() to see it).
    ~CheckpointWriter();
    CheckpointWriter(const CheckpointWriter&) = delete;
    CheckpointWriter& operator=(const CheckpointWriter&) = delete;

    /// Starts writing `data` to `path`; `tag` comes back from poll() when it is durable.
    void submit(CheckpointData data, std::string path, int64_t tag);
    /// Tags of the writes completed since the last call, in submit order; rethrows a failed write.
    std::vector<int64_t> poll();
    /// Waits until nothing is in flight, then as poll().
    std::vector<int64_t> finish();

private:
    void run();
    std::vector<int64_t> takeLocked(std::unique_lock<std::mutex>& lock);

    std::mutex mutex_;
    std::condition_variable cv_;
    std::optional<CheckpointData> pending_;
    std::string pendingPath_;
    int64_t pendingTag_ = 0;
    bool busy_ = false;  // pending_ taken by the thread and being written
    bool stopping_ = false;
    std::vector<int64_t> done_;
    std::exception_ptr error_;
    std::thread thread_;  // last: started after the state above exists
};

}  // namespace streetgan
