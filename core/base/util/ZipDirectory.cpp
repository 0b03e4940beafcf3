#include "base/util/ZipDirectory.h"

#include <algorithm>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

uint64_t le(const std::string& b, size_t at, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
    return v;
}

constexpr uint32_t kEocd = 0x06054b50, kEocd64 = 0x06064b50, kLocator64 = 0x07064b50, kCentral = 0x02014b50;

}  // namespace

std::vector<ZipDirectory::Entry> ZipDirectory::read(const ReadAt& readAt, uint64_t fileSize, const std::string& name) {
    const auto bad = [&](const std::string& why) { return DataError("zip '" + name + "': " + why + " (truncated or corrupt?)"); };
    // The end record is the last 22 bytes plus a comment of at most 65535.
    const uint64_t tailSize = std::min<uint64_t>(fileSize, 22 + 65535);
    const std::string tail = readAt(fileSize - tailSize, static_cast<size_t>(tailSize));
    if (tail.size() != tailSize || tailSize < 22) throw bad("no end of central directory");
    size_t eocd = std::string::npos;
    for (size_t i = tail.size() - 22 + 1; i-- > 0;)
        if (le(tail, i, 4) == kEocd) {
            eocd = i;
            break;
        }
    if (eocd == std::string::npos) throw bad("no end of central directory");
    if (eocd + 22 + le(tail, eocd + 20, 2) > tail.size()) throw bad("the end of central directory is cut short");
    uint64_t count = le(tail, eocd + 10, 2), dirSize = le(tail, eocd + 12, 4), dirOffset = le(tail, eocd + 16, 4);
    if (count == 0xFFFF || dirSize == 0xFFFFFFFF || dirOffset == 0xFFFFFFFF) {
        // zip64: the locator sits just before the end record and points at the zip64 end record.
        const uint64_t eocdPos = fileSize - tailSize + eocd;
        if (eocdPos < 20) throw bad("zip64 locator missing");
        const std::string loc = readAt(eocdPos - 20, 20);
        if (loc.size() != 20 || le(loc, 0, 4) != kLocator64) throw bad("zip64 locator missing");
        const uint64_t at = le(loc, 8, 8);
        if (at > fileSize || fileSize - at < 56) throw bad("zip64 end record outside the file");
        const std::string e64 = readAt(at, 56);
        if (e64.size() != 56 || le(e64, 0, 4) != kEocd64) throw bad("zip64 end record missing");
        count = le(e64, 32, 8), dirSize = le(e64, 40, 8), dirOffset = le(e64, 48, 8);
    }
    if (dirOffset > fileSize || dirSize > fileSize - dirOffset) throw bad("central directory outside the file");
    if (count > dirSize / 46) throw bad("more entries than the central directory can hold");
    const std::string dir = readAt(dirOffset, static_cast<size_t>(dirSize));
    if (dir.size() != dirSize) throw bad("central directory cut short");
    std::vector<Entry> out;
    out.reserve(static_cast<size_t>(count));
    size_t p = 0;
    for (uint64_t i = 0; i < count; ++i) {
        if (dir.size() - p < 46 || le(dir, p, 4) != kCentral) throw bad("central directory header " + std::to_string(i) + " malformed");
        Entry e;
        e.method = static_cast<uint16_t>(le(dir, p + 10, 2));
        e.compressedSize = le(dir, p + 20, 4);
        e.size = le(dir, p + 24, 4);
        const size_t nameLen = le(dir, p + 28, 2), extraLen = le(dir, p + 30, 2), commentLen = le(dir, p + 32, 2);
        const uint64_t localOffset = le(dir, p + 42, 4);
        if (dir.size() - p - 46 < nameLen + extraLen + commentLen) throw bad("central directory header " + std::to_string(i) + " cut short");
        e.name = dir.substr(p + 46, nameLen);
        // zip64 extended information: the 8-byte values of the fields that read all ones, in order.
        size_t x = p + 46 + nameLen;
        const size_t xEnd = x + extraLen;
        while (xEnd - x >= 4) {
            const uint64_t id = le(dir, x, 2), len = le(dir, x + 2, 2);
            if (xEnd - x - 4 < len) break;
            if (id == 0x0001) {
                size_t f = x + 4;
                const auto next = [&](uint64_t& field, uint64_t allOnes) {
                    if (field != allOnes) return;
                    if (x + 4 + len - f < 8) throw bad("zip64 field of '" + e.name + "' cut short");
                    field = le(dir, f, 8);
                    f += 8;
                };
                uint64_t off = localOffset;
                next(e.size, 0xFFFFFFFF);
                next(e.compressedSize, 0xFFFFFFFF);
                next(off, 0xFFFFFFFF);
            }
            x += 4 + len;
        }
        out.push_back(std::move(e));
        p += 46 + nameLen + extraLen + commentLen;
    }
    return out;
}

}  // namespace streetgan
