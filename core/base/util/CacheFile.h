// The binary cache files of the quality metrics (RealFeatureCache: the real images' features for
// FID/KID/PR; RealDescriptorCache: their SWD descriptors): an 8-byte magic, the JSON header's length
// as a little-endian u64, the JSON header (the caller's cache key and shapes, plus "crc32c" of the
// payload), then the payload. One layout and one set of checks, so both caches fail the same way.
//
// Thread contract: static functions; any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace streetgan {

class CacheFile {
public:
    /// A piece of the payload, written in order.
    struct Part {
        const char* data;
        size_t size;
    };
    /// What read() found: the header and the whole file.
    struct Contents {
        nlohmann::json header;
        std::string bytes;
        size_t payloadOffset = 0;
        /// The payload after checking that it is `expected` bytes and matches the header's
        /// "crc32c"; throws DataError "payload is N bytes, expected M" or "checksum mismatch".
        const char* payload(size_t expected) const;
    };

    /// Writes magic (8 characters) + `header` with "crc32c" added + the parts to `path` atomically
    /// (AtomicFile), creating its folder. Throws IoError naming the folder or the file, with
    /// `folderHint` (what to do) after a folder that cannot be made.
    static void write(const std::string& path, const std::string& magic, nlohmann::json header, const std::vector<Part>& parts, const std::string& folderHint);
    /// Reads `path`. Throws IoError when it cannot be read, DataError "not a <what>", "truncated
    /// header" or "bad header: <reason>" when it is not such a file.
    static Contents read(const std::string& path, const std::string& magic, const std::string& what);
};

}  // namespace streetgan
