#include "base/dataset/ZipFormat.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "base/dataset/ArchiveFormatDetail.h"
#include "base/dataset/DatasetNames.h"

namespace streetgan {

using namespace archive_format;
using Entry = ArchiveIndex::Entry;

namespace {

constexpr uint64_t kEndRecord = 22;
constexpr uint64_t kMaxComment = 65535;
constexpr uint64_t kLocator = 20;
constexpr uint64_t kDirectoryChunk = uint64_t(32) << 20;
constexpr uint32_t kNoSize = 0xFFFFFFFFu;

bool isDirectory(const std::string& name) { return !name.empty() && name.back() == '/'; }

/// The ZIP64 extended information extra field (0x0001): each 32-bit field that reads all ones
/// is there, as 64 bits, in this order.
bool applyZip64(std::string_view extra, uint64_t& usize, uint64_t& csize, uint64_t* offset) {
    bool found = false;
    for (size_t p = 0; p + 4 <= extra.size();) {
        const uint16_t id = le16(extra, p), len = le16(extra, p + 2);
        if (p + 4 + len > extra.size()) break;
        if (id == 1) {
            found = true;
            size_t q = p + 4;
            const size_t end = q + len;
            for (uint64_t* field : {&usize, &csize, offset}) {
                if (!field || *field != kNoSize) continue;
                if (q + 8 > end) break;
                *field = le64(extra, q);
                q += 8;
            }
        }
        p += 4 + len;
    }
    return found;
}

struct EndRecord {
    uint64_t at = 0;  ///< offset of the (32-bit) end record in the object
    uint64_t count = 0, directorySize = 0, directoryOffset = 0;
};

/// The last end-of-central-directory signature with a whole record after it, within a comment's
/// reach of the end (where ArchiveReader looks for it), and the ZIP64 end record it points to.
std::optional<EndRecord> findEnd(const RangeCursor::Fetch& fetch, uint64_t size, bool& found) {
    found = false;
    if (size < kEndRecord) return std::nullopt;
    const uint64_t tailLength = std::min(size, kEndRecord + kMaxComment + kLocator);
    const uint64_t tailStart = size - tailLength;
    const std::string tail = fetch(tailStart, tailLength);
    if (tail.size() != tailLength) return std::nullopt;
    const uint64_t lowest = tail.size() - kEndRecord > kMaxComment ? tail.size() - kEndRecord - kMaxComment : 0;
    for (uint64_t p = tail.size() - kEndRecord + 1; p-- > lowest;) {
        if (std::memcmp(tail.data() + p, "PK\5\6", 4) != 0) continue;
        found = true;
        EndRecord end;
        end.at = tailStart + p;
        end.count = le16(tail, p + 10);
        end.directorySize = le32(tail, p + 12);
        end.directoryOffset = le32(tail, p + 16);
        if (p >= kLocator && std::memcmp(tail.data() + p - kLocator, "PK\6\7", 4) == 0) {
            const uint64_t at64 = le64(tail, p - kLocator + 8);
            const std::string record = at64 >= tailStart && at64 + 56 <= end.at ? tail.substr(at64 - tailStart, 56) : fetch(at64, 56);
            if (record.size() < 56 || std::memcmp(record.data(), "PK\6\6", 4) != 0) return std::nullopt;
            end.count = le64(record, 32);
            end.directorySize = le64(record, 40);
            end.directoryOffset = le64(record, 48);
        }
        return end;
    }
    return std::nullopt;
}

/// The central directory's entries, or nullopt when it does not parse (the walk decides then).
std::optional<ArchiveIndex> readDirectory(const RangeCursor::Fetch& fetch, const EndRecord& end) {
    if (end.directoryOffset > end.at || end.directorySize > end.at - end.directoryOffset) return std::nullopt;
    std::string cd;
    while (cd.size() < end.directorySize) {
        const std::string part = fetch(end.directoryOffset + cd.size(), std::min<uint64_t>(kDirectoryChunk, end.directorySize - cd.size()));
        if (part.empty()) return std::nullopt;
        cd += part;
    }
    ArchiveIndex index;
    index.format = ArchiveIndex::Format::Zip;
    uint64_t seen = 0;
    for (size_t p = 0; p + 46 <= cd.size() && std::memcmp(cd.data() + p, "PK\1\2", 4) == 0; ++seen) {
        const uint16_t n = le16(cd, p + 28), e = le16(cd, p + 30), c = le16(cd, p + 32);
        if (p + 46 + n + e + c > cd.size()) return std::nullopt;
        Entry en;
        en.flags = le16(cd, p + 8);
        en.method = le16(cd, p + 10);
        en.crc = le32(cd, p + 16);
        en.compressedSize = le32(cd, p + 20);
        en.size = le32(cd, p + 24);
        en.offset = le32(cd, p + 42);
        en.name.assign(cd, p + 46, n);
        applyZip64(std::string_view(cd).substr(p + 46 + n, e), en.size, en.compressedSize, &en.offset);
        en.headerHint = 30 + n + e;
        // Made on Unix (the high byte of "version made by" is 3): the file type is in the high
        // half of the external attributes, as libarchive reads it.
        const uint32_t type = cd[p + 5] == 3 ? (le32(cd, p + 38) >> 16) & 0170000u : 0;
        p += 46 + n + e + c;
        if (isDirectory(en.name) || type == 0040000u) continue;
        if (type == 0120000u || (type != 0 && type != 0100000u)) {
            index.skipped.emplace_back(en.name, type == 0120000u ? dataset_names::kArchiveLink : dataset_names::kNotRegular);
            continue;
        }
        if (en.offset >= end.at) return std::nullopt;
        index.entries.push_back(std::move(en));
    }
    if (seen != end.count) return std::nullopt;
    return index;
}

// ---------------------------------------------------------------------------------------------
// The local-header walk, for a zip without a usable central directory.

enum class Mark { LocalHeader, End, None };

/// The next signature at or after `pos` as libarchive's streaming reader searches for it: a local
/// header, or the central directory / end record (the end of the entries); bytes in between are
/// skipped (data descriptors, garbage).
Mark nextSignature(RangeCursor& c, uint64_t& pos, uint64_t window) {
    for (bool first = true; pos + 4 <= c.objectSize(); first = false) {
        const std::string_view v = c.bytes(pos, first ? 4 : window);
        if (v.size() < 4) break;
        for (size_t i = 0; i + 4 <= v.size(); ++i) {
            if (v[i] != 'P' || v[i + 1] != 'K') continue;
            const char a = v[i + 2], b = v[i + 3];
            if (a == 3 && b == 4) {
                pos += i;
                return Mark::LocalHeader;
            }
            if ((a == 1 && b == 2) || (a == 5 && b == 6) || (a == 6 && b == 6)) {
                pos += i;
                return Mark::End;
            }
            if (first) break;
        }
        if (!first) pos += v.size() - 3;
    }
    return Mark::None;
}

/// A deflate stream of unknown length (sizes in a descriptor after it): inflates it to its end;
/// false when the object ends first or the data is corrupt.
bool inflateToEnd(RangeCursor& c, uint64_t start, uint64_t window, uint64_t& consumed, uint64_t& produced, uint32_t& crc) {
    z_stream s{};
    if (inflateInit2(&s, -15) != Z_OK) throw std::bad_alloc();
    std::vector<unsigned char> out(1 << 16);
    uint64_t pos = start;
    crc = static_cast<uint32_t>(crc32(0, nullptr, 0));
    produced = 0;
    int ret = Z_OK;
    while (ret == Z_OK) {
        const std::string_view in = c.bytes(pos, window);
        if (in.empty()) break;
        s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
        s.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), 1u << 30));
        do {
            s.next_out = out.data();
            s.avail_out = static_cast<uInt>(out.size());
            ret = inflate(&s, Z_NO_FLUSH);
            const size_t got = out.size() - s.avail_out;
            crc = static_cast<uint32_t>(crc32(crc, out.data(), static_cast<uInt>(got)));
            produced += got;
        } while (ret == Z_OK && s.avail_out == 0);
        pos += in.size() - s.avail_in;
        if (ret == Z_BUF_ERROR) ret = Z_OK;  // wants more input
    }
    consumed = pos - start;
    inflateEnd(&s);
    return ret == Z_STREAM_END;
}

/// Stored data of unknown length: the first data descriptor ("PK\7\8") whose compressed size is
/// its distance from the data. False when the object ends first.
bool findStoredEnd(RangeCursor& c, uint64_t start, uint64_t window, bool zip64, uint64_t& length, uint32_t& crc) {
    const uint64_t descriptor = zip64 ? 24 : 16;
    crc = static_cast<uint32_t>(crc32(0, nullptr, 0));
    for (uint64_t pos = start; pos + descriptor <= c.objectSize();) {
        const std::string_view v = c.bytes(pos, window);
        if (v.size() < descriptor) return false;
        size_t i = 0;
        for (; i + descriptor <= v.size(); ++i) {
            if (std::memcmp(v.data() + i, "PK\7\10", 4) != 0) continue;
            const uint64_t stated = zip64 ? le64(v, i + 8) : le32(v, i + 8);
            if (stated == pos + i - start) {
                crc = static_cast<uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(v.data()), static_cast<uInt>(i)));
                length = stated;
                return le32(v, i + 4) == crc;
            }
        }
        crc = static_cast<uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(v.data()), static_cast<uInt>(i)));
        pos += i;
    }
    return false;
}

ArchiveIndex walkLocalHeaders(const RangeCursor::Fetch& fetch, uint64_t size, const std::string& what, uint64_t window) {
    RangeCursor c(fetch, size, window);
    ArchiveIndex index;
    index.format = ArchiveIndex::Format::Zip;
    uint64_t pos = 0;
    for (bool first = true;; first = false) {
        const Mark mark = nextSignature(c, pos, window);
        if (mark == Mark::End) return index;
        std::string_view h = mark == Mark::LocalHeader ? c.bytes(pos, 30) : std::string_view();
        if (h.size() < 30) {
            if (first) notAnArchive(what, mark == Mark::None ? "no zip local header" : "truncated zip file header");
            index.truncated = true;
            return index;
        }
        Entry en;
        en.offset = pos;
        en.flags = le16(h, 6);
        en.method = le16(h, 8);
        en.crc = le32(h, 14);
        en.compressedSize = le32(h, 18);
        en.size = le32(h, 22);
        const uint16_t n = le16(h, 26), e = le16(h, 28);
        en.headerHint = 30 + n + e;
        const std::string nameExtra(c.bytes(pos + 30, n + e));
        if (nameExtra.size() < static_cast<size_t>(n) + e) {
            if (first) notAnArchive(what, "truncated zip file header");
            index.truncated = true;
            return index;
        }
        en.name = nameExtra.substr(0, n);
        const bool zip64 = applyZip64(std::string_view(nameExtra).substr(n), en.size, en.compressedSize, nullptr);
        const uint64_t data = pos + en.headerHint;
        const bool lengthAtEnd = (en.flags & 8) != 0 && en.compressedSize == 0 && en.size == 0;
        if (!lengthAtEnd) {
            en.intact = data + en.compressedSize <= size;
            pos = data + en.compressedSize;
        } else if (en.method == 8) {
            uint64_t consumed = 0, produced = 0;
            uint32_t crc = 0;
            const bool ended = inflateToEnd(c, data, window, consumed, produced, crc);
            const uint64_t fields = zip64 ? 20 : 12;
            const uint64_t at = data + consumed;
            const std::string d(c.bytes(at, fields + 4));
            const bool signature = d.size() >= 4 && std::memcmp(d.data(), "PK\7\10", 4) == 0;
            const uint64_t descriptor = fields + (signature ? 4 : 0);
            en.size = produced;
            en.compressedSize = consumed;
            en.crc = crc;
            en.intact = ended && d.size() >= descriptor && le32(d, signature ? 4 : 0) == crc;
            pos = at + descriptor;
        } else {
            uint64_t length = 0;
            uint32_t crc = 0;
            en.intact = en.method == 0 && findStoredEnd(c, data, window, zip64, length, crc);
            en.size = en.compressedSize = length;
            en.crc = crc;
            pos = data + length + (zip64 ? 24 : 16);
        }
        const bool intact = en.intact;
        if (!isDirectory(en.name)) index.entries.push_back(std::move(en));
        if (!intact) {
            index.truncated = true;
            return index;
        }
    }
}

}  // namespace

ArchiveIndex ZipFormat::list(const RangeCursor::Fetch& fetch, uint64_t objectSize, const std::string& what, uint64_t readAhead) {
    bool endFound = false;
    if (const auto end = findEnd(fetch, objectSize, endFound))
        if (auto index = readDirectory(fetch, *end)) return std::move(*index);
    ArchiveIndex walked = walkLocalHeaders(fetch, objectSize, what, readAhead);
    walked.truncated = walked.truncated || !endFound;
    return walked;
}

namespace {

/// What both reads check before touching the bytes.
void checkReadable(const Entry& entry, const std::string& what) {
    if (!entry.intact) damagedEntry(what, entry.name, "its data is cut short");
    if (entry.flags & 1) throw DataError(what + ": entry '" + entry.name + "' is encrypted; use an unencrypted zip");
    if (entry.method != 0 && entry.method != 8)
        throw DataError(what + ": entry '" + entry.name + "' uses compression method " + std::to_string(entry.method) +
                        ", and only stored and deflated entries are read; repack the zip with deflate");
}

/// The entry's compressed bytes at `data` (entry.compressedSize of them) stored or inflated, CRC-checked.
std::vector<uint8_t> decode(const Entry& entry, const char* data, const std::string& what) {
    // A header can declare 4 GiB over a few bytes: checked before allocating the declared size.
    if (entry.method == 0 && entry.compressedSize != entry.size)
        damagedEntry(what, entry.name, "stored with " + std::to_string(entry.compressedSize) + " bytes for " + std::to_string(entry.size));
    if (entry.method == 8 && entry.size > entry.compressedSize * 1032 + 1024)  // deflate expands at most 1032:1
        damagedEntry(what, entry.name, "declares " + std::to_string(entry.size) + " bytes from " + std::to_string(entry.compressedSize) + " compressed bytes");
    std::vector<uint8_t> out(static_cast<size_t>(entry.size));
    if (entry.method == 0) {
        if (!out.empty()) std::memcpy(out.data(), data, out.size());
    } else {
        thread_local std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(libdeflate_alloc_decompressor(),
                                                                                                    libdeflate_free_decompressor);
        if (!d) throw std::bad_alloc();
        size_t actual = 0;
        if (libdeflate_deflate_decompress(d.get(), data, entry.compressedSize, out.data(), out.size(), &actual) != LIBDEFLATE_SUCCESS || actual != out.size())
            damagedEntry(what, entry.name, "holds corrupt deflate data");
    }
    if (libdeflate_crc32(0, out.data(), out.size()) != entry.crc) damagedEntry(what, entry.name, "fails its CRC check");
    return out;
}

}  // namespace

std::vector<uint8_t> ZipFormat::read(const Entry& entry, const RangeCursor::Fetch& fetch, uint64_t objectSize, const std::string& what) {
    checkReadable(entry, what);
    if (entry.offset >= objectSize) damagedEntry(what, entry.name, "its offset lies past the end of the object");
    const uint64_t room = objectSize - entry.offset;
    std::string got = fetch(entry.offset, std::min(room, entry.headerHint + entry.compressedSize));
    if (got.size() < 30 || std::memcmp(got.data(), "PK\3\4", 4) != 0) damagedEntry(what, entry.name, "no local header at its offset");
    const uint64_t start = 30 + uint64_t(le16(got, 26)) + le16(got, 28);
    const uint64_t need = start + entry.compressedSize;
    if (need > room) damagedEntry(what, entry.name, "its data is cut short");
    if (got.size() < need) got += fetch(entry.offset + got.size(), need - got.size());
    if (got.size() < need) damagedEntry(what, entry.name, "its data is cut short");
    return decode(entry, got.data() + start, what);
}

std::vector<uint8_t> ZipFormat::read(const Entry& entry, std::string_view object, const std::string& what) {
    checkReadable(entry, what);
    if (entry.offset >= object.size()) damagedEntry(what, entry.name, "its offset lies past the end of the file");
    const std::string_view local = object.substr(entry.offset);
    if (local.size() < 30 || std::memcmp(local.data(), "PK\3\4", 4) != 0) damagedEntry(what, entry.name, "no local header at its offset");
    const uint64_t start = 30 + uint64_t(le16(local, 26)) + le16(local, 28);
    if (start > local.size() || entry.compressedSize > local.size() - start) damagedEntry(what, entry.name, "its data is cut short");
    return decode(entry, local.data() + start, what);
}

}  // namespace streetgan
