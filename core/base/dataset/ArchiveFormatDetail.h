// Internal to the archive parsers (ZipFormat, TarFormat) and their readers (ArchiveReader for a
// local file, S3ArchiveReader for an object in a bucket): little-endian field reads and the
// messages for a damaged entry and for something that is no archive. `what` names the archive:
// a path, or "s3://bucket/key" (then the advice is to upload it again, not to re-download it).
// Thread contract: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/util/Errors.h"

namespace streetgan::archive_format {

inline uint16_t le16(std::string_view s, size_t at) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data() + at);
    return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline uint32_t le32(std::string_view s, size_t at) { return le16(s, at) | (static_cast<uint32_t>(le16(s, at + 2)) << 16); }
inline uint64_t le64(std::string_view s, size_t at) { return le32(s, at) | (static_cast<uint64_t>(le32(s, at + 4)) << 32); }

inline bool inBucket(const std::string& what) { return what.rfind("s3://", 0) == 0; }

[[noreturn]] inline void damagedEntry(const std::string& what, const std::string& entry, const std::string& why) {
    throw DataError(what + ": entry '" + entry + "' is damaged (" + why + "); the archive is truncated or corrupt, " +
                    (inBucket(what) ? "upload it again" : "re-download it"));
}

/// The first-header refusal.
[[noreturn]] inline void notAnArchive(const std::string& what, const std::string& why) {
    throw DataError(what + ": not a zip or tar archive (" + why + "); point the data source at an MSLS batch (" +
                    (inBucket(what) ? ".zip or .tar" : ".zip, .tar or .tar.gz") + ")");
}

}  // namespace streetgan::archive_format
