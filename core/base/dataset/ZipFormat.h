// ZipFormat: a zip listed and read by ranged reads, never whole: an object in a bucket
// (S3ArchiveReader) or a local file mapped in memory (ArchiveReader).
//   list(): one GET of the tail (the end-of-central-directory record, its comment, the ZIP64
//     locator), the ZIP64 end record when there is one, then the central directory in GETs of at
//     most 32 MiB. A zip without its end record (cut short) or whose directory does not parse is
//     walked instead by its local headers, through a read-ahead block, as libarchive's streaming
//     zip reader walks one: the entries complete before the damage listed,
//     the one at the damage not intact, truncated() set when the end record is missing. Folders
//     ("name/") are not listed; symbolic links and other special files made on Unix (their type in
//     the central directory's external attributes) go to `skipped` with their reason; the rest
//     are regular files.
//   read(): one GET of [local header, + header + name + extra + compressed size] (a second one
//     when the local extra field is longer than the central one), stored bytes copied or deflate
//     inflated (libdeflate), CRC-32 checked. Other methods and encrypted entries: DataError
//     naming the entry. The mapped form does the same on the bytes in memory.
// ZIP64 sizes and offsets are read wherever they may appear (end record, central and local extra
// fields, data descriptors).
//
// Thread contract: stateless; reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/dataset/ArchiveIndex.h"
#include "base/dataset/RangeCursor.h"

namespace streetgan {

class ZipFormat {
public:
    /// Lists the zip of `objectSize` bytes. `what` names it in errors ("s3://b/k.zip"). Throws
    /// DataError when it is not a zip at all; S3Error as `fetch` does.
    static ArchiveIndex list(const RangeCursor::Fetch& fetch, uint64_t objectSize, const std::string& what, uint64_t readAhead = uint64_t(1) << 20);
    /// The bytes of one listed entry. Throws DataError naming `what` and the entry when it is
    /// damaged, encrypted or compressed by a method other than stored / deflate.
    static std::vector<uint8_t> read(const ArchiveIndex::Entry& entry, const RangeCursor::Fetch& fetch, uint64_t objectSize, const std::string& what);
    /// The same from the whole zip in memory (a mapped file): no copy of the compressed bytes.
    static std::vector<uint8_t> read(const ArchiveIndex::Entry& entry, std::string_view object, const std::string& what);
};

}  // namespace streetgan
