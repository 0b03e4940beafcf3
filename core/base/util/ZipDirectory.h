// The central directory of a zip file, read from its end (the end-of-central-directory record, its
// zip64 form where the counts or offsets need it, then one header per entry): each entry's name,
// compression method and declared sizes, without reading or inflating any data. Used to bound what a
// reader will allocate before it asks a zip library for an entry (a torch.save checkpoint's records:
// TorchPickleReader), since such a library allocates the declared uncompressed size up front.
// Throws DataError (naming `name`) on a directory it cannot read: truncated, inconsistent, or
// claiming more entries or bytes than the file has.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace streetgan {

class ZipDirectory {
public:
    struct Entry {
        std::string name;
        uint16_t method = 0;  ///< 0 stored, 8 deflated
        uint64_t compressedSize = 0;
        uint64_t size = 0;  ///< uncompressed, as declared
    };
    /// Reads up to `n` bytes at `pos` (fewer only at the end of the file).
    using ReadAt = std::function<std::string(uint64_t pos, size_t n)>;

    static std::vector<Entry> read(const ReadAt& readAt, uint64_t fileSize, const std::string& name);
};

}  // namespace streetgan
