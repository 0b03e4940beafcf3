#include "base/dataset/ArchiveIndex.h"

#include <cstring>

#include "base/util/BlobReader.h"
#include "base/util/BlobWriter.h"

namespace streetgan {

namespace {
constexpr char kMagic[8] = {'S', 'G', 'S', '3', 'I', 'X', '0', '1'};
}

std::string ArchiveIndex::serialize(const std::string& key) const {
    BlobWriter w(std::string(kMagic, sizeof kMagic));
    w.str(key);
    w.u64(format == Format::Zip ? 0 : 1);
    w.u64(truncated ? 1 : 0);
    w.u64(entries.size());
    for (const Entry& e : entries) {
        w.str(e.name);
        w.u64(e.size);
        w.u64(e.offset);
        w.u64(e.compressedSize);
        w.u64(e.headerHint);
        w.u64(e.crc);
        w.u64(e.method);
        w.u64(e.flags);
        w.u64(e.intact ? 1 : 0);
    }
    w.u64(skipped.size());
    for (const auto& [name, reason] : skipped) {
        w.str(name);
        w.str(reason);
    }
    return w.bytes();
}

std::optional<ArchiveIndex> ArchiveIndex::parse(const std::string& blob, const std::string& key) {
    if (blob.size() < sizeof kMagic || std::memcmp(blob.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
    BlobReader r(blob, sizeof kMagic);
    if (r.str() != key || !r.ok()) return std::nullopt;
    ArchiveIndex index;
    const uint64_t format = r.u64();
    if (format > 1) return std::nullopt;
    index.format = format == 0 ? Format::Zip : Format::Tar;
    index.truncated = r.u64() != 0;
    const uint64_t n = r.u64();
    if (!r.ok() || n > blob.size()) return std::nullopt;
    index.entries.reserve(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n && r.ok(); ++i) {
        Entry e;
        e.name = r.str();
        e.size = r.u64();
        e.offset = r.u64();
        e.compressedSize = r.u64();
        e.headerHint = r.u64();
        e.crc = static_cast<uint32_t>(r.u64());
        e.method = static_cast<uint16_t>(r.u64());
        e.flags = static_cast<uint16_t>(r.u64());
        e.intact = r.u64() != 0;
        index.entries.push_back(std::move(e));
    }
    const uint64_t k = r.u64();
    if (!r.ok() || k > blob.size()) return std::nullopt;
    for (uint64_t i = 0; i < k && r.ok(); ++i) {
        std::string name = r.str();
        std::string reason = r.str();
        index.skipped.emplace_back(std::move(name), std::move(reason));
    }
    if (!r.ok() || !r.atEnd()) return std::nullopt;
    return index;
}

}  // namespace streetgan
