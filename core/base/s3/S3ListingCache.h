// S3ListingCache: a bucket prefix's listing (every key with its size and ETag) kept on disk, so
// that a second run does not list 1.6 million keys again (ListObjectsV2 pages 1000 keys a request:
// 1,600 sequential round trips). Like the archive index (ArchiveReader's .sgindex), written
// atomically next to what it describes where that is possible; a bucket has no room for it, so it
// lies in the local S3 cache folder: DIR/listings/<16 hex of FNV-1a of endpoint|bucket|prefix>.sglist.
//
// Invalidation: a bucket has no cheap "changed since" (no mtime of a prefix, and one listing page
// proves nothing about the others), so a cached listing is trusted for `maxAgeHours` after it
// was made (24 h by default; 0: always list), then listed again. Inside that window an object
// added is not seen, one deleted fails its GET (counted as an unreadable file, as a file deleted
// under a local run), and one rewritten is served as listed: the object cache is keyed by the
// listed ETag, so no stale bytes are mixed with new ones after a relisting.
//
// Format: "SGS3LST1 <unix seconds> <count> <id length>\n<id>\n", then a line per object:
// "<size> <etag or -> <key, %-encoded as SigV4's URI encoding with '/' kept>\n". A file that does
// not parse, or names another id, is ignored (listed again).
//
// Thread contract: stateless functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "base/s3/S3Client.h"
#include "base/s3/S3Responses.h"

namespace streetgan::s3 {

class S3ListingCache {
public:
    /// The objects under `prefix` of `client`'s bucket: from the cache file in `cacheDir` when
    /// it is younger than `maxAgeHours`, else listed (and the file written; a write that fails is
    /// not an error). `endpoint` is part of the file's identity.
    static std::vector<S3Object> list(S3Client& client, const std::string& endpoint, const std::string& prefix, const std::string& cacheDir,
                                      double maxAgeHours);
    /// The cache file for a listing.
    static std::string fileFor(const std::string& cacheDir, const std::string& endpoint, const std::string& bucket, const std::string& prefix);
};

}  // namespace streetgan::s3
