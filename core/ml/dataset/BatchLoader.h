// Threaded, ordered, bounded prefetch of training batches.
//
// The content of the batch for global step s is a pure function of (seed, s): the epoch is
// s / stepsPerEpoch, the images are a per-epoch deterministic shuffle (drop-last), the noise
// comes from a generator seeded by (seed, s). So a resumed run sees exactly the batches the
// uninterrupted run would have seen, whatever the number of worker threads.
//
// Read-ahead: a source that gains from it (ImageSource::prefetchWindow() > 0: S3) is told the
// images of the steps ahead of the one a worker claims, in the order they will be loaded
// (ImageSource::prefetch), so its fetches are in flight before a worker asks for them. Only
// timing depends on it: the batches stay the pure function above.
//
// Thread contract: one consumer thread calls next(); `threads` workers fill a queue of at most
// `prefetch` ready batches. A worker's DataError is rethrown by next().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ml/dataset/Batch.h"
#include "ml/dataset/ImageSource.h"

namespace streetgan {

struct LoaderOptions {
    int64_t batch = 128;
    int imgSize = 64;
    int64_t nz = 100;
    uint64_t seed = 0;
    int threads = 2;
    int prefetch = 4;
    bool shuffle = true;
    bool pinMemory = false;      ///< page-locked batches for asynchronous host-to-GPU copies
    bool instanceNoise = false;  ///< also draw instanceReal/instanceFake
    bool deviceSide = false;     ///< uint8 pixels and a seed instead of float tensors (Batch.h): for a GPU
    int64_t rank = 0;            ///< this rank's shard of every epoch (distributed runs)
    int64_t worldSize = 1;
};

class BatchLoader {
public:
    BatchLoader(std::shared_ptr<const ImageSource> source, LoaderOptions options);
    ~BatchLoader();
    BatchLoader(const BatchLoader&) = delete;
    BatchLoader& operator=(const BatchLoader&) = delete;

    /// Steps per epoch for this rank (drop-last). Throws DataError when smaller than one batch.
    int64_t stepsPerEpoch() const { return stepsPerEpoch_; }
    /// Starts the workers producing batches from global step `first` on.
    void start(int64_t first);
    /// The next batch in step order; blocks until it is ready.
    Batch next();
    /// Builds the batch for `step` on the calling thread (used by workers, tests and benchmarks).
    Batch make(int64_t step) const;
    void stop();

private:
    void work();
    /// Announces to the source the images of the steps from `step` up to its prefetch window
    /// ahead, those not announced yet.
    void announce(int64_t step);
    std::shared_ptr<const std::vector<int64_t>> permutation(int64_t epoch) const;

    std::shared_ptr<const ImageSource> source_;
    LoaderOptions opt_;
    int64_t stepsPerEpoch_ = 0;

    std::vector<std::thread> workers_;
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::condition_variable ready_, space_;
    std::map<int64_t, Batch> done_;
    int64_t nextToClaim_ = 0;
    int64_t nextToDeliver_ = 0;
    std::exception_ptr error_;

    std::mutex announceMutex_;
    int64_t announced_ = 0;  ///< steps before this one were announced

    mutable std::mutex permMutex_;
    mutable std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>> perms_;
};

}  // namespace streetgan
