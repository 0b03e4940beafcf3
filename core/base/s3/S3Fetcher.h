// S3Fetcher: many GETs of one bucket in flight at once, for the data loader: one thread sends
// them all through a libcurl multi handle (CurlMulti: its connections kept and reused), fetching
// what prefetch() announces in the order announced, while get() serves an object from memory
// (prefetched), from the disk cache (S3ObjectCache), or fetches it now, ahead of every announced one.
//
// Why one thread for all the requests: a thread per request in flight (48 and more: a round trip
// of 20 ms at 2,400 images/s) spent about a fifth of the loader's CPU waking, polling and
// switching (bench/README.md, "S3"); one poll() for all of them costs a few percent. What a
// first answer does not settle, S3Client settles as get() does, on a few retry threads: a
// throttle or server error (retried after a backoff with jitter, up to its attempts), a transfer
// cut part-way (resumed by range from the byte reached, If-Match its ETag), an answer to read
// otherwise; an error no retry mends is thrown as the same one-line S3Error. So the rules live in
// S3Client alone, and a request costs at most one attempt more than S3Client's own.
//
// Sized to the link: `concurrency` requests in flight at first, one more (up to
// `maxConcurrency`) each time a get() has to wait while every one is taken and objects are still
// queued (the round trips, not the loader, are the bottleneck), as the SFTP reader grows its
// requests in flight; at 100 ms a round trip a 2-thread loader needs ~200 GETs in flight. A
// throttled answer (503 SlowDown, 5xx) halves the requests in flight, and every that many answers
// that come whole add one back (additive increase, multiplicative decrease: S3's "slow down").
//
// Fetched bytes wait in memory until get() takes them; at most `maxReady` objects do (the oldest
// unclaimed are dropped; the disk cache holds what a get() took: it is written on that thread). An object announced again
// before it was taken (the next epoch's window reaching back into this one's, on a small data set)
// is fetched once and kept until each announced get() has taken it. An announced object already
// in the disk cache is not fetched again. A failed fetch keeps its S3Error for the get() that
// claims it (a loader counts NotFound and AccessDenied as unreadable files and goes on).
//
// Thread contract: every member may be called from any thread; the destructor stops the sending
// thread (transfers in flight are dropped) and the retry threads (a retry in progress ends first).
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

#include "base/s3/CurlMulti.h"
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
        int concurrency = 48;                  ///< requests in flight at first
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
        int64_t workers = 0;     ///< requests that can be in flight now (grown to the link)
        int64_t limit = 0;       ///< requests in flight allowed now: `workers`, less after throttles
        int64_t throttled = 0;   ///< first answers that were throttles or server errors
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
        int claims = 0;       ///< announcements (prefetch) no get() has taken yet
        bool stored = false;  ///< written to the disk cache (by the first get() that took it)
    };
    /// A first answer S3Client settles (S3Client::GetOutcome Cut, Retry or Ask).
    struct Rework {
        std::string id;
        Request request;
        bool backoff = false;   ///< throttled or no answer: wait before asking again
        std::string got, etag;  ///< what a cut transfer brought
    };
    /// The sending thread: starts queued requests while there is room, judges the answers.
    void send();
    /// A retry thread: settles reworks with its own S3Client.
    void rework();
    /// Stores a fetched object in memory and wakes its waiters.
    void finish(const std::string& id, const Request& request, std::string bytes, const std::exception_ptr& error);
    /// Takes the outcome of a Ready or Failed item (under the lock); erases it when no one else
    /// waits or is announced. Writes the disk cache the first time (the lock released meanwhile).
    std::string take(std::unordered_map<std::string, Item>::iterator it, std::unique_lock<std::mutex>& lock);
    void trimReadyLocked();
    /// One more request in flight when every one is taken, objects are queued and the limit allows.
    void growLocked();

    std::string bucket_;
    S3ClientOptions client_;
    S3Client::CredentialSource credentials_;
    Options options_;
    mutable std::mutex mutex_;
    std::condition_variable done_, reworkReady_;
    std::unordered_map<std::string, Item> items_;
    std::deque<std::string> queue_;       ///< ids to fetch, front first (stale ids skipped)
    std::deque<std::string> readyOrder_;  ///< ids that became Ready, oldest first
    std::deque<Rework> reworks_;          ///< first answers for the retry threads
    size_t ready_ = 0;
    int inFlight_ = 0;    ///< requests sent and not settled (the retry threads' too)
    int slots_ = 0;       ///< requests in flight it may have (grown to the link)
    int limit_ = 0;       ///< the same, after throttles (at most slots_)
    int sinceRaise_ = 0;  ///< whole answers since limit_ last grew
    bool stopping_ = false;
    Counters counters_;
    CurlMulti multi_;
    std::thread sender_;
    std::vector<std::thread> reworkers_;  ///< started on first need, at most kReworkers
};

}  // namespace streetgan::s3
