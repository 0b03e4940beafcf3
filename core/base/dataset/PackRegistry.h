// The packed caches made on this machine (by `data pack` and by `train --data-path packed`), so
// that a run on photos finds the one made of the same photos with the same settings by itself
// (DataSources::openForTraining, issue 46: the packed cache is chosen and said).
//
// One line per pack made, appended to Paths::cacheDir("packs")/registry.jsonl:
//   {"dir": the cache folder (absolute), "source": sourceKey() of the photos it was made of,
//    "fingerprint": PackedCacheWriter's (format, size, augmentation, shard size, and every
//    entry's path, size, key, city and sequence), "shard_bytes", "size", "images", "t"}.
// The registry only says where to look: a match is always checked against the cache's own
// index.json (its fingerprint and its shards), so a deleted, moved or re-packed cache is never
// trusted by its line. Lines are appended whole (O_APPEND, one write), never rewritten; a
// malformed line (a write cut by a crash) is skipped; a later line for the same folder replaces
// an earlier one. Failing to write it is not an error: the pack works, it is just not found by
// itself.
//
// Thread contract: stateless; any thread. Two processes appending at once write whole lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streetgan {

class PackRegistry {
public:
    struct Entry {
        std::string dir;     ///< the cache folder (absolute)
        std::string source;  ///< sourceKey() of the photos it was made of
        std::string fingerprint;
        int64_t shardBytes = 0;
        int size = 0;
        int64_t images = 0;
        double t = 0;  ///< when it was recorded (Unix seconds)
    };

    /// `file`: the registry (default: Paths::cacheDir("packs")/registry.jsonl).
    explicit PackRegistry(std::string file = defaultFile());

    static std::string defaultFile();
    /// Where `train --data-path packed` and `data pack` without --out put a pack of this
    /// fingerprint: Paths::cacheDir("packs")/<fingerprint>.
    static std::string defaultDir(const std::string& fingerprint);
    /// The key of a --data spec: a folder's absolute, normalised path (symlinks resolved); an
    /// s3:// spec as given, with " at ENDPOINT" when an endpoint is set.
    static std::string sourceKey(const std::string& spec, const std::string& s3Endpoint = "");

    /// Appends `entry` (t set now when 0). Returns false (and writes nothing) when the file cannot
    /// be written.
    bool add(Entry entry) const;
    /// The packs recorded for `source`, newest first, one per folder.
    std::vector<Entry> forSource(const std::string& source) const;

    const std::string& file() const { return file_; }

private:
    std::string file_;
};

}  // namespace streetgan
