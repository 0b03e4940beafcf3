#include "base/s3/S3ArchiveReader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>

#include "base/dataset/ArchiveFormatDetail.h"
#include "base/dataset/DatasetNames.h"
#include "base/dataset/TarFormat.h"
#include "base/dataset/ZipFormat.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"

namespace streetgan::s3 {

namespace {

/// The compressed-stream magics libarchive would read a tar through: none can be read at an
/// offset without inflating all that comes before it.
const char* compressionOf(const std::string& head) {
    const auto starts = [&](const char* magic, size_t n) { return head.size() >= n && std::memcmp(head.data(), magic, n) == 0; };
    if (starts("\x1f\x8b", 2)) return "gzip";
    if (starts("BZh", 3)) return "bzip2";
    static const char xz[] = {'\xfd', '7', 'z', 'X', 'Z', '\0'};
    if (starts(xz, sizeof xz)) return "xz";
    if (starts("\x28\xb5\x2f\xfd", 4)) return "zstd";
    if (starts("LZIP", 4)) return "lzip";
    if (starts("\x04\x22\x4d\x18", 4)) return "lz4";
    if (starts("\x1f\x9d", 2)) return "compress";
    return nullptr;
}

bool isZip(const std::string& head) {
    return head.size() >= 4 && head[0] == 'P' && head[1] == 'K' &&
           ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6) || (head[2] == 7 && head[3] == 8) || (head[2] == '0' && head[3] == '0'));
}

}  // namespace

S3ArchiveReader::S3ArchiveReader(const S3Url& url, S3ClientOptions options, S3Client::CredentialSource credentials, const std::string& indexCacheDir)
    : bucket_(url.bucket), key_(url.prefix), uri_(url.str()), options_(std::move(options)), credentials_(std::move(credentials)) {
    if (key_.empty() || key_.back() == '/')
        throw ConfigError(uri_ + " names a folder, not a zip or tar object: give the batch's key (s3://bucket/path/batch.zip)");
    const S3Object head = [&] {
        auto client = acquire();
        ++requests_;
        S3Object o = client->head(key_);
        release(std::move(client));
        return o;
    }();
    size_ = head.size;
    etag_ = head.etag;
    if (size_ == 0) throw DataError(uri_ + ": archive is empty; upload the batch again");
    const std::string identity = options_.endpoint + "\n" + bucket_ + "\n" + key_;
    indexPath_ = Paths::cacheFileFor("s3-index", identity, ".sgindex");
    if (!indexCacheDir.empty()) indexPath_ = indexCacheDir + "/" + std::filesystem::path(indexPath_).filename().string();
    std::optional<ArchiveIndex> cached;
    try {
        cached = ArchiveIndex::parse(AtomicFile::read(indexPath_), cacheKey());
    } catch (const IoError&) {
        // no cache file yet (or unreadable): list
    }
    if (cached) {
        index_ = std::move(*cached);
        fromCache_ = true;
    } else {
        list();
        try {
            std::error_code ec;
            std::filesystem::create_directories(std::filesystem::path(indexPath_).parent_path(), ec);
            AtomicFile::write(indexPath_, index_.serialize(cacheKey()));
        } catch (const IoError&) {
            // not writable: the next open lists again; no cache is not an error
        }
    }
    name_ = index_.formatName() + " '" + uri_ + "'";
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < index_.entries.size(); ++i)
            if (index_.entries[i].intact == (pass == 0)) byPath_.emplace(DatasetIndex::normalizePath(index_.entries[i].name), i);
}

S3ArchiveReader::~S3ArchiveReader() = default;

std::string S3ArchiveReader::cacheKey() const {
    return "s3 archive v1\n" + options_.endpoint + "\n" + bucket_ + "\n" + key_ + "\n" + etag_ + "\n" + std::to_string(size_);
}

void S3ArchiveReader::list() {
    const auto fetch = [this](uint64_t offset, uint64_t length) { return this->fetch(offset, length); };
    const std::string head = fetch(0, 512);
    if (isZip(head)) {
        index_ = ZipFormat::list(fetch, size_, uri_);
    } else if (const char* compression = compressionOf(head)) {
        throw DataError(uri_ + ": a " + std::string(compression) +
                        "-compressed archive cannot be read in place from S3 (each image would need everything before it inflated); "
                        "repack the batch as a zip or a plain (uncompressed) tar");
    } else if (TarFormat::isHeader(head) || (head.size() == 512 && std::all_of(head.begin(), head.end(), [](char c) { return c == 0; }))) {
        index_ = TarFormat::list(fetch, size_, uri_);
    } else {
        archive_format::notAnArchive(uri_, "neither a zip nor a tar header at its start");
    }
}

std::unique_ptr<S3Client> S3ArchiveReader::acquire() const {
    {
        std::lock_guard lock(mutex_);
        if (!idle_.empty()) {
            auto client = std::move(idle_.back());
            idle_.pop_back();
            return client;
        }
    }
    return std::make_unique<S3Client>(bucket_, options_, credentials_);
}

void S3ArchiveReader::release(std::unique_ptr<S3Client> client) const {
    std::lock_guard lock(mutex_);
    if (idle_.size() < kMaxIdleClients) idle_.push_back(std::move(client));
}

std::string S3ArchiveReader::fetch(uint64_t offset, uint64_t length) const {
    auto client = acquire();
    ++requests_;
    // A failed request leaves the client usable (its connection is reopened when needed): it goes
    // back to the pool either way.
    struct Return {
        const S3ArchiveReader* self;
        std::unique_ptr<S3Client>* client;
        ~Return() { self->release(std::move(*client)); }
    } giveBack{this, &client};
    return client->getRange(key_, offset, length);
}

size_t S3ArchiveReader::entryOf(const std::string& entryPath) const {
    const auto it = byPath_.find(DatasetIndex::normalizePath(entryPath));
    if (it == byPath_.end()) throw DataError("archive '" + uri_ + "' has no entry '" + entryPath + "'");
    return it->second;
}

S3ArchiveReader::Range S3ArchiveReader::range(size_t i) const {
    if (i >= index_.entries.size())
        throw DataError(uri_ + ": entry index " + std::to_string(i) + " out of range (" + std::to_string(index_.entries.size()) + " entries)");
    const ArchiveIndex::Entry& e = index_.entries[i];
    const uint64_t room = e.offset < size_ ? size_ - e.offset : 0;
    return Range{e.offset, std::min(room, index_.format == ArchiveIndex::Format::Zip ? e.headerHint + e.compressedSize : e.size)};
}

std::vector<uint8_t> S3ArchiveReader::decode(size_t i, const std::string& bytes) const {
    const Range r = range(i);
    // The entry's readers ask for the range first: served from `bytes`, anything else by a GET.
    const auto fetch = [&](uint64_t offset, uint64_t length) {
        if (offset >= r.offset && offset - r.offset <= bytes.size() && length <= bytes.size() - (offset - r.offset))
            return bytes.substr(static_cast<size_t>(offset - r.offset), static_cast<size_t>(length));
        return this->fetch(offset, length);
    };
    const ArchiveIndex::Entry& e = index_.entries[i];
    return index_.format == ArchiveIndex::Format::Zip ? ZipFormat::read(e, fetch, size_, uri_) : TarFormat::read(e, fetch, uri_);
}

std::vector<uint8_t> S3ArchiveReader::read(size_t i) const {
    const Range r = range(i);
    const ArchiveIndex::Entry& e = index_.entries[i];
    if (!e.intact || r.length == 0) return decode(i, std::string());  // the format's reader names the damage
    return decode(i, fetch(r.offset, r.length));
}

std::vector<uint8_t> S3ArchiveReader::read(const std::string& entryPath) const { return read(entryOf(entryPath)); }

DatasetIndex::Listing S3ArchiveReader::listing(std::shared_ptr<const S3ArchiveReader> keepAlive) const {
    DatasetIndex::Listing l;
    l.rootPath = uri_;
    for (const ArchiveIndex::Entry& e : index_.entries) {
        if (e.intact) {
            l.files.push_back({e.name, e.size, 0});
        } else {
            ++l.skipped[dataset_names::kTruncatedEntry];
            l.skippedFiles[dataset_names::kTruncatedEntry].push_back(DatasetIndex::normalizePath(e.name));
        }
    }
    for (const auto& [name, reason] : index_.skipped) {
        ++l.skipped[reason];
        l.skippedFiles[reason].push_back(DatasetIndex::normalizePath(name));
    }
    l.readText = [this, keepAlive = std::move(keepAlive)](const std::string& path) -> std::optional<std::string> {
        const auto it = byPath_.find(DatasetIndex::normalizePath(path));
        if (it == byPath_.end() || !index_.entries[it->second].intact) return std::nullopt;
        try {
            const auto bytes = read(it->second);
            return std::string(bytes.begin(), bytes.end());
        } catch (const Error&) {
            return std::nullopt;
        }
    };
    return l;
}

}  // namespace streetgan::s3
