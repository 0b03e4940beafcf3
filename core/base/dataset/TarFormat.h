// TarFormat: a plain tar (an object in a bucket, a local file mapped in memory, or the inflated
// stream of a local tar.gz) listed by a walk over its headers through a
// read-ahead block (RangeCursor: a block holds the headers of the small entries after it, so an
// MSLS tar of 100 KB images costs one GET per block, not one per image; a large entry is skipped
// over without reading it), and read by one ranged GET of an entry's data.
// Formats: ustar (name with its prefix), GNU (long names 'L', long link names 'K', base-256
// sizes) and pax ('x' headers: path, size; 'g' global headers are skipped). What the listing
// keeps matches libarchive's reading of a tar: regular files (types '0',
// '\0', '7' and unknown types), folders dropped, links ('1', '2') and devices / FIFOs skipped with
// their reason; the walk stops at the end blocks, at a header whose checksum fails or at the end
// of the object (truncated, with the entry cut short not intact). An extension header's body
// (pax, long name) is read whole; one that declares more than 16 MiB is damage.
// A stream whose length is not known yet (ArchiveReader's tar.gz, listed while it is inflated)
// is listed with objectSize = kUnknownSize: the walk stops where the bytes end, and the caller
// judges the last entry against the length found.
//
// Thread contract: stateless; reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/dataset/ArchiveIndex.h"
#include "base/dataset/RangeCursor.h"

namespace streetgan {

class TarFormat {
public:
    /// objectSize for a stream whose length is not known: a multiple of the block, never reached.
    static constexpr uint64_t kUnknownSize = ~uint64_t(511);

    /// True when the 512-byte block is a tar header (its checksum is right).
    static bool isHeader(const std::string& block);
    /// Lists the tar of `objectSize` bytes. Throws DataError naming `what` when its first header
    /// is not one; S3Error as `fetch` does.
    static ArchiveIndex list(const RangeCursor::Fetch& fetch, uint64_t objectSize, const std::string& what, uint64_t readAhead = uint64_t(1) << 20);
    /// The bytes of one listed entry (DataError naming `what` and the entry when cut short).
    static std::vector<uint8_t> read(const ArchiveIndex::Entry& entry, const RangeCursor::Fetch& fetch, const std::string& what);
};

}  // namespace streetgan
