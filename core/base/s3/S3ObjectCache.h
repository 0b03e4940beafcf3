// S3ObjectCache: fetched S3 objects (or byte ranges of them) kept on local disk, so that a later
// epoch, or a later run, reads them locally instead of from the bucket. Bounded by a size limit,
// least recently used out first.
//
// Key: an object's identity, "endpoint|bucket|key|version" (S3Fetcher::Request::id; version is the
// listing's ETag, or its size when the store gives none, plus the byte range for ranged reads): a
// rewritten object has another ETag, so another entry, and its old bytes age out by LRU.
// Files: DIR/objects/<16 hex of FNV-1a of the id>.obj, each "SGS3OBJ1 <id length> <body length>\n",
// the id, then the body; a read checks the id and the length (a hash collision or a torn file is a
// miss, and the file is replaced). Written atomically (a temporary in the same folder renamed over
// the target) but not fsynced: a cache entry lost in a crash is fetched again, and an fsync per
// object would cost more than the fetch.
// LRU: the entries' last use is kept in memory (seeded from the files' mtimes at construction,
// and a hit sets the file's mtime, so a later run keeps the order). Several processes may share
// a folder: each bounds what it sees; a file another removed is a miss.
//
// Thread contract: every member may be called from any thread (one mutex over the index; file
// I/O outside it).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace streetgan::s3 {

class S3ObjectCache {
public:
    /// $XDG_CACHE_HOME/streetgan/s3 (Paths::cacheDir("s3")).
    static std::string defaultDir();
    /// Opens (creates) the cache in `dir` holding at most `limitBytes`; evicts down to it at once.
    /// Throws IoError when the folder cannot be made.
    S3ObjectCache(std::string dir, uint64_t limitBytes);

    /// The bytes stored for `id`, or nullopt (a miss). A hit makes it the most recently used.
    std::optional<std::string> get(const std::string& id);
    /// Whether `id` is stored (no LRU update, no read).
    bool contains(const std::string& id) const;
    /// Stores `bytes` for `id` and evicts the least recently used entries above the limit (an
    /// object larger than the limit is not stored). A write that fails (disk full) is not an
    /// error: the object is just not cached.
    void put(const std::string& id, const std::string& bytes);

    const std::string& dir() const { return dir_; }
    uint64_t limit() const { return limit_; }
    uint64_t bytes() const;
    size_t count() const;
    int64_t evictions() const;

private:
    struct Slot {
        uint64_t size = 0;  ///< file bytes (header included)
        uint64_t tick = 0;  ///< last use, in lruOrder_
    };
    std::string fileFor(const std::string& id) const;
    void touch(const std::string& name, Slot& slot);
    void evictLocked(uint64_t keepBelow);

    std::string dir_, objects_;
    uint64_t limit_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Slot> slots_;  ///< file name -> slot
    std::map<uint64_t, std::string> lruOrder_;     ///< tick -> file name, oldest first
    uint64_t nextTick_ = 1, total_ = 0;
    int64_t evictions_ = 0;
};

}  // namespace streetgan::s3
