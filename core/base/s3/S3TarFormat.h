// S3TarFormat: a plain tar object in a bucket listed by a walk over its headers through a
// read-ahead block (S3RangeCursor: a block holds the headers of the small entries after it, so an
// MSLS tar of 100 KB images costs one GET per block, not one per image; a large entry is skipped
// over without reading it), and read by one ranged GET of an entry's data.
// Formats: ustar (name with its prefix), GNU (long names 'L', long link names 'K', base-256
// sizes) and pax ('x' headers: path, size; 'g' global headers are skipped). What the listing
// keeps matches libarchive's reading of a local tar (ArchiveReader): regular files (types '0',
// '\0', '7' and unknown types), folders dropped, links ('1', '2') and devices / FIFOs skipped with
// their reason; the walk stops at the end blocks, at a header whose checksum fails or at the end
// of the object (truncated, with the entry cut short not intact).
//
// Thread contract: stateless; reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/s3/S3ArchiveIndex.h"
#include "base/s3/S3RangeCursor.h"

namespace streetgan::s3 {

class S3TarFormat {
public:
    /// True when the 512-byte block is a tar header (its checksum is right).
    static bool isHeader(const std::string& block);
    /// Lists the tar of `objectSize` bytes. Throws DataError naming `what` when its first header
    /// is not one; S3Error as `fetch` does.
    static S3ArchiveIndex list(const S3RangeCursor::Fetch& fetch, uint64_t objectSize, const std::string& what, uint64_t readAhead = uint64_t(1) << 20);
    /// The bytes of one listed entry (DataError naming `what` and the entry when cut short).
    static std::vector<uint8_t> read(const S3ArchiveIndex::Entry& entry, const S3RangeCursor::Fetch& fetch, const std::string& what);
};

}  // namespace streetgan::s3
