#include "base/dataset/TarFormat.h"

#include <algorithm>
#include <optional>

#include "base/dataset/ArchiveFormatDetail.h"
#include "base/dataset/DatasetNames.h"

namespace streetgan {

using namespace archive_format;
using Entry = ArchiveIndex::Entry;

namespace {

constexpr uint64_t kBlock = 512;
constexpr uint64_t kMaxExtension = uint64_t(16) << 20;  // a pax or long-name body
constexpr uint64_t kMaxSize = uint64_t(1) << 62;        // beyond it, offsets would wrap

uint64_t roundUp(uint64_t n) { return (n + kBlock - 1) / kBlock * kBlock; }

/// An octal field (leading blanks, up to the first non-digit), or GNU's base-256 (high bit set).
uint64_t number(std::string_view h, size_t at, size_t width) {
    const std::string_view f = h.substr(at, width);
    const auto first = static_cast<unsigned char>(f[0]);
    uint64_t v = 0;
    if (first & 0x80) {
        if (first & 0x40) return 0;  // negative
        v = first & 0x3F;
        for (size_t i = 1; i < f.size(); ++i) v = (v << 8) | static_cast<unsigned char>(f[i]);
        return v;
    }
    size_t i = 0;
    while (i < f.size() && (f[i] == ' ' || f[i] == '\0')) {
        if (f[i] == '\0') return 0;
        ++i;
    }
    for (; i < f.size() && f[i] >= '0' && f[i] <= '7'; ++i) v = (v << 3) | static_cast<uint64_t>(f[i] - '0');
    return v;
}

std::string field(std::string_view h, size_t at, size_t width) {
    const std::string_view f = h.substr(at, width);
    return std::string(f.substr(0, std::min(f.size(), f.find('\0'))));
}

bool allZero(std::string_view h) {
    return std::all_of(h.begin(), h.end(), [](char c) { return c == 0; });
}

struct Pax {
    std::optional<std::string> path;
    std::optional<uint64_t> size;
};

/// "LEN key=value\n" records; unknown keys and malformed records are ignored.
void parsePax(std::string_view body, Pax& pax) {
    for (size_t p = 0; p < body.size();) {
        size_t q = p;
        uint64_t len = 0;
        while (q < body.size() && body[q] >= '0' && body[q] <= '9') len = len * 10 + static_cast<uint64_t>(body[q++] - '0');
        if (q >= body.size() || body[q] != ' ' || len == 0 || p + len > body.size()) return;
        const std::string_view record = body.substr(q + 1, p + len - q - 1);
        p += len;
        const size_t eq = record.find('=');
        if (eq == std::string_view::npos) continue;
        const std::string_view key = record.substr(0, eq);
        std::string_view value = record.substr(eq + 1);
        if (!value.empty() && value.back() == '\n') value.remove_suffix(1);
        if (key == "path") {
            pax.path = std::string(value);
        } else if (key == "size") {
            uint64_t v = 0;
            for (const char ch : value) v = ch >= '0' && ch <= '9' ? v * 10 + static_cast<uint64_t>(ch - '0') : v;
            pax.size = v;
        }
    }
}

}  // namespace

bool TarFormat::isHeader(const std::string& block) {
    if (block.size() < kBlock) return false;
    // Unsigned and signed sums, the checksum field counted as blanks (old tars summed signed chars).
    uint64_t u = 0;
    int64_t s = 0;
    for (size_t i = 0; i < kBlock; ++i) {
        const char c = i >= 148 && i < 156 ? ' ' : block[i];
        u += static_cast<unsigned char>(c);
        s += static_cast<signed char>(c);
    }
    const std::string_view f = std::string_view(block).substr(148, 8);
    if (f.find_first_of("01234567") == std::string_view::npos) return false;
    const uint64_t stated = number(block, 148, 8);
    return stated == u || static_cast<int64_t>(stated) == s;
}

ArchiveIndex TarFormat::list(const RangeCursor::Fetch& fetch, uint64_t objectSize, const std::string& what, uint64_t readAhead) {
    RangeCursor c(fetch, objectSize, readAhead);
    ArchiveIndex index;
    index.format = ArchiveIndex::Format::Tar;
    uint64_t pos = 0;
    Pax pax;
    std::string longName;
    bool sawExtension = false;  // an 'x', 'g', 'L' or 'K' header waits for its entry's header
    // The header of a damaged entry: the first one is no archive at all, a later one ends the listing.
    const auto stop = [&](bool first, const char* why) {
        if (first) notAnArchive(what, why);
        index.truncated = true;
    };
    for (bool first = true;;) {
        if (pos > objectSize) {  // a skipped entry's data ran past the end
            stop(first, "truncated tar archive");
            return index;
        }
        const std::string h(c.bytes(pos, kBlock));
        if (h.empty() && sawExtension) {  // an extension header whose entry's header is missing
            stop(first, "truncated tar archive");
            return index;
        }
        if (h.empty()) break;  // the end at a block boundary, without end blocks: as libarchive
        if (h.size() < kBlock) {
            stop(first, "truncated tar header");
            return index;
        }
        if (allZero(h)) break;
        if (!isHeader(h)) {
            stop(first, "tar header checksum fails");
            return index;
        }
        const char type = h[156];
        uint64_t size = number(h, 124, 12);
        const uint64_t data = pos + kBlock;
        if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
            if (size > kMaxExtension || data + size > objectSize) {
                stop(first, "truncated tar extension header");
                return index;
            }
            const std::string body(c.bytes(data, size));
            if (type == 'x') parsePax(body, pax);
            if (type == 'L') longName = body.substr(0, std::min(body.size(), body.find('\0')));
            sawExtension = true;
            pos = data + roundUp(size);
            continue;
        }
        if (type == 'V') {  // a volume label: no entry
            pos = data + roundUp(size);
            continue;
        }
        std::string name = field(h, 0, 100);
        if (h.compare(257, 6, std::string("ustar\0", 6)) == 0) {
            const std::string prefix = field(h, 345, 155);
            if (!prefix.empty()) name = prefix + "/" + name;
        }
        if (!longName.empty()) name = longName;
        if (pax.path) name = *pax.path;
        if (pax.size) size = *pax.size;
        if (size >= kMaxSize) {
            stop(first, "tar header declares an impossible size");
            return index;
        }
        pax = Pax{};
        longName.clear();
        sawExtension = false;
        first = false;

        uint64_t dataLength = size;  // what follows the header (links, devices and folders: nothing)
        if (type == '1' || type == '2') {
            index.skipped.emplace_back(name, dataset_names::kArchiveLink);
            dataLength = 0;
        } else if (type == '3' || type == '4' || type == '6') {
            index.skipped.emplace_back(name, dataset_names::kNotRegular);
            dataLength = 0;
        } else if (type == '5' || (!name.empty() && name.back() == '/' && type != 'D')) {
            dataLength = 0;
        } else if (type != 'D') {
            Entry en;
            en.name = std::move(name);
            en.offset = data;
            en.size = en.compressedSize = size;
            if (type == 'S') {  // old GNU sparse: the listed size is the file's, the data its chunks
                en.size = number(h, 483, 12);
                en.flags = 1;
            }
            en.intact = data + roundUp(size) <= objectSize;
            const bool intact = en.intact;
            index.entries.push_back(std::move(en));
            if (!intact) {
                index.truncated = true;
                return index;
            }
        }
        pos = data + roundUp(dataLength);
    }
    index.truncated = objectSize % kBlock != 0;
    return index;
}

std::vector<uint8_t> TarFormat::read(const Entry& entry, const RangeCursor::Fetch& fetch, const std::string& what) {
    if (!entry.intact) damagedEntry(what, entry.name, "its data is cut short");
    if (entry.flags & 1) throw DataError(what + ": entry '" + entry.name + "' is a sparse file, which is not read from S3; repack the tar without --sparse");
    const std::string got = fetch(entry.offset, entry.size);
    if (got.size() != entry.size)
        damagedEntry(what, entry.name, "holds " + std::to_string(got.size()) + " bytes, the header says " + std::to_string(entry.size));
    return std::vector<uint8_t>(got.begin(), got.end());
}

}  // namespace streetgan
