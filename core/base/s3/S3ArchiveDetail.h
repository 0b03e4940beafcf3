// Internal to the S3 archive reader (S3ZipFormat, S3TarFormat, S3ArchiveReader): little-endian
// field reads and the one message for a damaged entry.
// Thread contract: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/util/Errors.h"

namespace streetgan::s3::archive_detail {

inline uint16_t le16(std::string_view s, size_t at) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data() + at);
    return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline uint32_t le32(std::string_view s, size_t at) { return le16(s, at) | (static_cast<uint32_t>(le16(s, at + 2)) << 16); }
inline uint64_t le64(std::string_view s, size_t at) { return le32(s, at) | (static_cast<uint64_t>(le32(s, at + 4)) << 32); }

/// As ArchiveReader words it for a local archive, with what to do about an object.
[[noreturn]] inline void damagedEntry(const std::string& what, const std::string& entry, const std::string& why) {
    throw DataError(what + ": entry '" + entry + "' is damaged (" + why + "); the archive is truncated or corrupt, upload it again");
}

/// The first-header refusal, as ArchiveReader's for a local file.
[[noreturn]] inline void notAnArchive(const std::string& what, const std::string& why) {
    throw DataError(what + ": not a zip or tar archive (" + why + "); point the data source at an MSLS batch (.zip or .tar)");
}

}  // namespace streetgan::s3::archive_detail
