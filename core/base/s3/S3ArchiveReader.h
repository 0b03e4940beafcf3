// S3ArchiveReader: a zip or plain tar batch in a bucket read in place, never downloaded whole: the
// listing of ZipFormat (end record and central directory by ranged GETs) or TarFormat (a
// header walk by ranged GETs through a read-ahead block), and each entry by a ranged GET (a zip
// entry inflated and its CRC checked). It gives the listing PhotoListing::archiveListing gives for
// the same file on disk (ArchiveReader): the same names and sizes, links and special files
// skipped under the same reasons, the entries of a truncated or corrupt object up to the damage,
// the one at the damage skipped as "truncated archive entry", and a damaged entry's read() a
// DataError naming the object and the entry.
// The format comes from the content (the first bytes), not the key's extension. A tar.gz (or any
// compressed tar) cannot be read at an offset without inflating everything before it, so it is
// refused with one line: repack the batch as zip or plain tar.
//
// Index cache: the listing is saved (atomically) under `indexCacheDir` ("" =
// $XDG_CACHE_HOME/streetgan/s3-index) in a file named by a hash of the endpoint, bucket and key,
// keyed inside by the object's ETag and size: opening the same object again costs one HEAD. A
// changed object (new ETag or size) is listed again; failing to write the file is not an error.
//
// Thread contract: after construction read() and listing()'s reader may be called from any number
// of threads at once: each call borrows an S3Client (one thread at a time each) from a small pool
// of idle clients, making one when none is idle, so there are as many connections as concurrent
// readers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/dataset/ArchiveIndex.h"
#include "base/dataset/DatasetIndex.h"
#include "base/s3/S3Client.h"
#include "base/s3/S3Url.h"

namespace streetgan::s3 {

class S3ArchiveReader {
public:
    /// HEADs the object `url` names (S3Error as S3Client: a missing object is NotFound), then
    /// loads its cached index or lists it. Throws DataError for an empty object, one that is not
    /// a zip or tar, and a compressed tar (one line each, naming the object); ConfigError when
    /// `url` names no object (a prefix ending in '/').
    S3ArchiveReader(const S3Url& url, S3ClientOptions options, S3Client::CredentialSource credentials, const std::string& indexCacheDir = "");
    ~S3ArchiveReader();
    S3ArchiveReader(const S3ArchiveReader&) = delete;
    S3ArchiveReader& operator=(const S3ArchiveReader&) = delete;

    /// "zip 's3://b/k.zip'" or "tar 's3://b/k.tar'", for messages.
    const std::string& name() const { return name_; }
    /// "s3://b/k.zip".
    const std::string& uri() const { return uri_; }
    /// As PhotoListing::archiveListing gives for a local archive: rootPath the object's URI, the
    /// intact entries as files, the rest counted and named under their reasons, and a CSV reader
    /// that reads entries (`keepAlive`, when given, keeps this reader alive for it; otherwise the
    /// listing's reader may be used only while this object lives).
    DatasetIndex::Listing listing(std::shared_ptr<const S3ArchiveReader> keepAlive = nullptr) const;
    /// The bytes of the entry at `entryPath` (normalised as DatasetIndex::normalizePath). Throws
    /// DataError for an unknown path or a damaged entry, S3Error when a request fails.
    std::vector<uint8_t> read(const std::string& entryPath) const;
    /// The bytes of entry i of index().entries.
    std::vector<uint8_t> read(size_t i) const;

    /// Where entry i's bytes lie in the object: the one range read(i) GETs (a zip entry: its local
    /// header, name, extra field as the central directory gives them, and data), for a loader
    /// that fetches ranges itself (ahead of time, through a disk cache) and hands them to decode().
    struct Range {
        uint64_t offset = 0, length = 0;
    };
    Range range(size_t i) const;
    /// Entry i's bytes from `bytes`, the object's bytes in range(i) (what read(i) does after its
    /// GET; a zip entry whose local extra field outgrows the range costs a GET of the rest).
    std::vector<uint8_t> decode(size_t i, const std::string& bytes) const;
    /// Entry number of `entryPath` (normalised); DataError naming it when absent.
    size_t entryOf(const std::string& entryPath) const;
    /// The object's ETag when opened (its version, for a cache key) and size.
    const std::string& etag() const { return etag_; }
    uint64_t objectSize() const { return size_; }
    const std::string& bucket() const { return bucket_; }
    const std::string& key() const { return key_; }
    bool truncated() const { return index_.truncated; }

    const ArchiveIndex& index() const { return index_; }
    /// True when the listing came from the index cache (no listing requests).
    bool fromCache() const { return fromCache_; }
    /// The index cache file read or written.
    const std::string& indexPath() const { return indexPath_; }
    /// Requests this reader has sent (the HEAD, the listing's GETs, one or two per read()).
    int requests() const { return requests_.load(); }
    /// Idle clients kept for later reads at most.
    static constexpr size_t kMaxIdleClients = 32;

private:
    std::string fetch(uint64_t offset, uint64_t length) const;
    std::unique_ptr<S3Client> acquire() const;
    void release(std::unique_ptr<S3Client> client) const;
    void list();
    std::string cacheKey() const;

    std::string bucket_, key_, uri_, name_, indexPath_, etag_;
    S3ClientOptions options_;
    S3Client::CredentialSource credentials_;
    uint64_t size_ = 0;
    ArchiveIndex index_;
    bool fromCache_ = false;
    std::unordered_map<std::string, size_t> byPath_;  ///< normalised path -> entry (an intact one first)
    mutable std::mutex mutex_;
    mutable std::vector<std::unique_ptr<S3Client>> idle_;
    mutable std::atomic<int> requests_{0};
};

}  // namespace streetgan::s3
