// ArchiveReader's index cache (see ArchiveReader.h): the listing and the tar.gz access points
// saved to and loaded from an .sgindex file, keyed by the archive's absolute path, size and mtime.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/ArchiveReaderDetail.h"
#include "base/util/AtomicFile.h"
#include "base/util/BlobReader.h"
#include "base/util/BlobWriter.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"

namespace streetgan {

using archive_detail::kWindow;

// ---------------------------------------------------------------------------------------------
// Index cache: little-endian-native binary, "SGARCIX3", the key, then the listing (version 2 added
// the skipped entries at the end; version 3 the zip fields of each entry, and a tar entry's
// offsets are its data's, no longer its header's; an older file is ignored and rewritten).

namespace {

constexpr char kIndexMagic[8] = {'S', 'G', 'A', 'R', 'C', 'I', 'X', '3'};

std::string absolutePath(const std::string& path) {
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
}

}  // namespace

std::string ArchiveReader::cacheKey() const { return absolutePath(path_) + "\n" + std::to_string(size_) + "\n" + std::to_string(mtimeNs_); }

std::vector<std::string> ArchiveReader::cacheCandidates() const {
    std::vector<std::string> out{path_ + ".sgindex"};
    out.push_back(Paths::cacheFileFor("archive-index", absolutePath(path_), ".sgindex"));
    return out;
}

bool ArchiveReader::loadIndex(const std::string& file) {
    std::string blob;
    {
        std::ifstream f(file, std::ios::binary);
        if (!f) return false;
        std::ostringstream ss;
        ss << f.rdbuf();
        blob = ss.str();
    }
    if (blob.size() < sizeof kIndexMagic || std::memcmp(blob.data(), kIndexMagic, sizeof kIndexMagic) != 0) return false;
    BlobReader r(blob, sizeof kIndexMagic);
    if (r.str() != cacheKey() || !r.ok()) return false;
    const uint64_t format = r.u64();
    if (format > static_cast<uint64_t>(Format::CompressedTar)) return false;
    const bool truncated = r.u64() != 0;
    const uint64_t streamEnd = r.u64();
    const uint64_t n = r.u64();
    if (!r.ok() || n > blob.size()) return false;
    std::vector<Entry> entries;
    std::vector<Location> locations;
    for (uint64_t i = 0; i < n && r.ok(); ++i) {
        Entry e;
        e.name = r.str();
        e.size = r.u64();
        Location l;
        l.begin = r.u64();
        l.end = r.u64();
        l.ordinal = r.u64();
        l.compressedSize = r.u64();
        l.headerHint = r.u64();
        l.crc = static_cast<uint32_t>(r.u64());
        l.method = static_cast<uint16_t>(r.u64());
        l.flags = static_cast<uint16_t>(r.u64());
        l.intact = r.u64() != 0;
        entries.push_back(std::move(e));
        locations.push_back(l);
    }
    const uint64_t m = r.u64();
    if (!r.ok() || m > blob.size()) return false;
    std::vector<Checkpoint> checkpoints;
    for (uint64_t i = 0; i < m && r.ok(); ++i) {
        Checkpoint c;
        c.out = r.u64();
        c.in = r.u64();
        c.bits = static_cast<int>(r.u64());
        c.memberStart = r.u64() != 0;
        const std::string w = r.str();
        c.window.assign(w.begin(), w.end());
        if (c.in > size_ || c.bits < 0 || c.bits > 7 || (c.bits && c.in == 0) || (!c.memberStart && c.window.size() != kWindow)) r.fail();
        checkpoints.push_back(std::move(c));
    }
    const uint64_t k = r.u64();
    if (!r.ok() || k > blob.size()) return false;
    std::vector<std::pair<std::string, std::string>> skipped;
    for (uint64_t i = 0; i < k && r.ok(); ++i) {
        std::string name = r.str();
        std::string reason = r.str();
        skipped.emplace_back(std::move(name), std::move(reason));
    }
    if (!r.ok() || !r.atEnd()) return false;
    format_ = static_cast<Format>(format);
    skipped_ = std::move(skipped);
    truncated_ = truncated;
    streamEnd_ = streamEnd;
    entries_ = std::move(entries);
    locations_ = std::move(locations);
    checkpoints_ = std::move(checkpoints);
    return true;
}

void ArchiveReader::saveIndex() {
    BlobWriter w(std::string(kIndexMagic, sizeof kIndexMagic));
    w.str(cacheKey());
    w.u64(static_cast<uint64_t>(format_));
    w.u64(truncated_ ? 1 : 0);
    w.u64(streamEnd_);
    w.u64(entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
        w.str(entries_[i].name);
        w.u64(entries_[i].size);
        w.u64(locations_[i].begin);
        w.u64(locations_[i].end);
        w.u64(locations_[i].ordinal);
        w.u64(locations_[i].compressedSize);
        w.u64(locations_[i].headerHint);
        w.u64(locations_[i].crc);
        w.u64(locations_[i].method);
        w.u64(locations_[i].flags);
        w.u64(locations_[i].intact ? 1 : 0);
    }
    w.u64(checkpoints_.size());
    for (const Checkpoint& c : checkpoints_) {
        w.u64(c.out);
        w.u64(c.in);
        w.u64(static_cast<uint64_t>(c.bits));
        w.u64(c.memberStart ? 1 : 0);
        w.str(std::string(c.window.begin(), c.window.end()));
    }
    w.u64(skipped_.size());
    for (const auto& [name, reason] : skipped_) {
        w.str(name);
        w.str(reason);
    }
    for (const std::string& file : cacheCandidates()) {
        try {
            std::error_code ec;
            std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
            AtomicFile::write(file, w.bytes());
            indexPath_ = file;
            return;
        } catch (const IoError&) {
            // not writable here: try the next place; no cache is not an error
        }
    }
}

}  // namespace streetgan
