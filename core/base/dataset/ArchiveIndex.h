// ArchiveIndex: the table of contents of a zip or plain tar (an object in a bucket or a local
// file), as the listing
// (ZipFormat::list, TarFormat::list) made it and S3ArchiveReader's index cache stores it: every regular-file
// entry with where its bytes are, the links and special files skipped, and whether the listing
// stopped at damage. Saved as "SGS3IX01" + a key (endpoint, bucket, key, ETag, size) + the entries
// (BlobWriter); a file whose key differs, or that is short or damaged, parses to nothing.
//
// Thread contract: a value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace streetgan {

struct ArchiveIndex {
    enum class Format { Zip, Tar };

    struct Entry {
        std::string name;             ///< path inside the archive, as stored
        uint64_t size = 0;            ///< uncompressed bytes
        uint64_t offset = 0;          ///< zip: its local header; tar: its data
        uint64_t compressedSize = 0;  ///< zip: the stored bytes; tar: = size
        uint64_t headerHint = 0;      ///< zip: local header + name + extra as far as known (the first GET's length)
        uint32_t crc = 0;             ///< zip CRC-32
        uint16_t method = 0;          ///< zip compression method (0 stored, 8 deflate)
        uint16_t flags = 0;           ///< zip general purpose flags; tar: 1 for a sparse entry
        bool intact = true;           ///< false: cut by the end of the object or corrupt (read throws)
    };

    Format format = Format::Zip;
    bool truncated = false;  ///< the listing stopped at damage, or a zip lacks its end record
    std::vector<Entry> entries;
    /// Links and special files, as (name, dataset_names reason): listed, never read.
    std::vector<std::pair<std::string, std::string>> skipped;

    /// "zip" or "tar".
    std::string formatName() const { return format == Format::Zip ? "zip" : "tar"; }
    std::string serialize(const std::string& key) const;
    /// nullopt when `blob` is not an index saved under `key` (another version of the object, a
    /// cut or damaged file).
    static std::optional<ArchiveIndex> parse(const std::string& blob, const std::string& key);
};

}  // namespace streetgan
