// S3Fetcher: many GETs of one bucket in flight at once, for the data loader: a pool of worker
// threads, each with its own S3Client (so its own libcurl connection, kept and reused from request
// to request), fetching what prefetch() announces in the order announced, while get() serves
// an object from memory (prefetched), from the disk cache (S3ObjectCache), or fetches it now,
// ahead of every announced one.
//
// Why threads with an S3Client each rather than one libcurl multi handle: S3Client already holds
// the request's signing, its retries with backoff and jitter, the resumption of a dropped
// transfer and the one-line errors; a multi handle would need all of that again as a state
// machine. A blocked thread costs a stack (idle, a few pages); 32-64 of them are nothing beside
// the images they fetch, and the loader's own threads stay free for decoding.
//
// Sized to the link: the pool starts at `concurrency` threads and grows by one, up to
// `maxConcurrency`, each time a get() has to wait while every worker is busy and objects are still
// queued (the round trips, not the loader, are the bottleneck), as the SFTP reader grows its
// requests in flight; at 100 ms a round trip a 2-thread loader needs ~200 GETs in flight.
//
// Fetched bytes wait in memory until get() takes them; at most `maxReady` objects do (the oldest
// unclaimed are dropped, still in the disk cache when there is one). An announced object already
// in the disk cache is not fetched again. A failed fetch keeps its S3Error for the get() that
// claims it (a loader counts NotFound and AccessDenied as unreadable files and goes on).
//
// Thread contract: every member may be called from any thread; the destructor stops the workers
// (requests in flight finish first).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/s3/S3Client.h"
#include "base/s3/S3ObjectCache.h"

namespace streetgan::s3 {

class S3Fetcher {
public:
    struct Request {
        std::string key;
        /// The object's version as listed (ETag, else its size): part of the cache key.
        std::string version;
        /// A byte range [offset, offset + length); length 0: the whole object.
        uint64_t offset = 0, length = 0;
        /// false: never stored in (nor read from) the disk cache (no version to key it by).
        bool cacheable = true;
    };
    struct Options {
        int concurrency = 48;                  ///< requests in flight (worker threads) at first
        int maxConcurrency = 256;              ///< the most they grow to (at least `concurrency`)
        std::shared_ptr<S3ObjectCache> cache;  ///< null: no disk cache
        size_t maxReady = 4096;                ///< fetched objects held in memory until claimed
    };
    /// What the fetcher did so far.
    struct Counters {
        int64_t requests = 0;    ///< GETs sent (each retry once more in `retries`)
        int64_t retries = 0;     ///< requests sent again (throttled, dropped)
        int64_t bytes = 0;       ///< bytes fetched
        int64_t diskHits = 0;    ///< get()s served by the disk cache
        int64_t memoryHits = 0;  ///< get()s served by a prefetched object, ready
        int64_t waits = 0;       ///< get()s that waited for a fetch (in flight, or sent by them)
        int64_t dropped = 0;     ///< prefetched objects dropped unclaimed (maxReady)
        int64_t workers = 0;     ///< worker threads now (requests that can be in flight)
    };

    S3Fetcher(std::string bucket, S3ClientOptions client, S3Client::CredentialSource credentials, Options options);
    ~S3Fetcher();
    S3Fetcher(const S3Fetcher&) = delete;
    S3Fetcher& operator=(const S3Fetcher&) = delete;

    /// The object's bytes (blocking). Throws S3Error as S3Client does.
    std::string get(const Request& request);
    /// Announces objects that get() will ask for soon, in that order: fetched by the workers
    /// behind whatever get() waits for. Already announced, fetched or cached ones are skipped.
    void prefetch(const std::vector<Request>& requests);
    Counters counters() const;
    /// The cache key of a request: "endpoint|bucket|key|version[|offset+length]".
    std::string id(const Request& request) const;
    const std::string& bucket() const { return bucket_; }
    /// The most requests in flight it may grow to (a prefetch window should cover them).
    int maxConcurrency() const { return options_.maxConcurrency; }

private:
    enum class State { Queued, InFlight, Ready, Failed };
    struct Item {
        Request request;
        State state = State::Queued;
        std::string bytes;
        std::exception_ptr error;
        int waiters = 0;
    };
    void work();
    /// Takes the outcome of a Ready or Failed item (under the lock); erases it when no one else waits.
    std::string take(std::unordered_map<std::string, Item>::iterator it, std::unique_lock<std::mutex>& lock);
    void trimReadyLocked();
    /// One more worker when every one is busy, objects are queued and the pool may grow.
    void growLocked();

    std::string bucket_;
    S3ClientOptions client_;
    S3Client::CredentialSource credentials_;
    Options options_;
    mutable std::mutex mutex_;
    std::condition_variable work_, done_;
    std::unordered_map<std::string, Item> items_;
    std::deque<std::string> queue_;       ///< ids to fetch, front first (stale ids skipped)
    std::deque<std::string> readyOrder_;  ///< ids that became Ready, oldest first
    size_t ready_ = 0;
    int busy_ = 0;  ///< workers with a request in flight
    bool stopping_ = false;
    Counters counters_;
    std::vector<std::thread> workers_;
};

}  // namespace streetgan::s3
