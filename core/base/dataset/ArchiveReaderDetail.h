// Internal to ArchiveReader (its .cpp files): the libarchive and zlib helpers the listing and the
// reading share: the deflate window size, zlib's chunk limit, an owning libarchive handle, and
// small wrappers.
// Thread contract: constants and functions without shared state.
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace streetgan::archive_detail {

inline constexpr size_t kWindow = 32768;              // deflate history
inline constexpr size_t kMaxChunk = size_t(1) << 30;  // zlib's avail_in / avail_out are 32-bit

struct ArchiveFree {
    void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;

inline std::string errorOf(archive* a) {
    const char* e = archive_error_string(a);
    return e ? e : "unknown libarchive error";
}

inline bool isRegular(archive_entry* e) { return archive_entry_filetype(e) == AE_IFREG && archive_entry_hardlink(e) == nullptr; }

inline bool headerOk(int r) { return r == ARCHIVE_OK || r == ARCHIVE_WARN; }

/// Refills z_stream input from the mapped file when it ran dry.
inline void feed(z_stream& s, const uint8_t* data, size_t size) {
    if (s.avail_in != 0) return;
    const size_t pos = static_cast<size_t>(s.next_in - data);
    s.avail_in = static_cast<uInt>(std::min(size - pos, kMaxChunk));
}

}  // namespace streetgan::archive_detail
