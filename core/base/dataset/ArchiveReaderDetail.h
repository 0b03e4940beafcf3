// Internal to ArchiveReader (its .cpp files): the zlib helpers the tar.gz listing and reading
// share: the deflate window size, zlib's chunk limit and the input refill.
// Thread contract: constants and functions without shared state.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace streetgan::archive_detail {

inline constexpr size_t kWindow = 32768;              // deflate history
inline constexpr size_t kMaxChunk = size_t(1) << 30;  // zlib's avail_in / avail_out are 32-bit

/// Refills z_stream input from the mapped file when it ran dry.
inline void feed(z_stream& s, const uint8_t* data, size_t size) {
    if (s.avail_in != 0) return;
    const size_t pos = static_cast<size_t>(s.next_in - data);
    s.avail_in = static_cast<uInt>(std::min(size - pos, kMaxChunk));
}

}  // namespace streetgan::archive_detail
