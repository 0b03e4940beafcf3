// A photo data source as listed (a folder tree, or a zip / tar / tar.gz archive read in place by
// ArchiveReader) together with the verdict of each of its images: the one place that decides
// which files are images, so that `data stats` counts exactly what PhotoSource trains from.
//
// Verdicts: "ok", or why a file is unusable, named as ImageDecoder::reasonName ("not-an-image",
// "truncated", "corrupt", "unsupported", "too-large"), or "unreadable file" when reading it failed
// (I/O error, damaged archive entry). They are stored in the source's ImageVerdictCache (keyed by
// path, size and mtime, or the archive's identity), except "unreadable file" (often transient:
// permissions, a network mount) and the run-dependent "too-small" (it depends on the crop).
//   - check() decodes every image whose verdict is unknown (all cores), so the stats are the truth;
//     a second check() decodes nothing.
//   - index() builds the DatasetIndex without the files known to be bad: they are counted (and
//     named) under their verdict in skipped(), like the lister's "empty file".
// The loader (PhotoSource) opens the same listing without check(): known-bad files never reach
// it; what it finds out itself it records into the same cache (PhotoSource::Verdicts).
//
// The checker's verdict for a file: the header walk of ImageDecoder::probe (structure up to the
// end marker, which is what catches truncation), then a decode at 1/8 scale for JPEGs (libjpeg's
// scaled IDCT still entropy-decodes every block) or full scale for PNG/WebP. kChecker names these
// checks in the cache key: change it when they change, and old verdicts are checked again.
//
// Thread contract: a PhotoListing is used by one thread at a time; check() runs its own worker
// threads and calls `progress` on the calling thread. reader() and verdicts() may be shared with
// any number of threads (the reader is thread-safe, as ArchiveReader::read).
//
// Header-only (inline definitions below the class): it adds no file to the library's source list.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/DatasetIndex.h"
#include "base/dataset/ImageVerdictCache.h"
#include "base/util/Errors.h"
#include "ml/data/ImageDecoder.h"
#include "ml/data/PackedCacheWriter.h"

namespace streetgan {

class PhotoListing {
public:
    /// Names the checks behind a verdict (part of the cache key).
    static constexpr const char* kChecker = "probe+decode/8 v1";
    static constexpr const char* kUnreadable = "unreadable file";
    static constexpr const char* kTruncatedEntry = "truncated archive entry";

    /// An image's bytes; thread-safe; throws Error when it cannot be read.
    using ByteReader = std::function<std::vector<uint8_t>(const ImageEntry&)>;
    /// (checked so far, to check) on the thread that called check().
    using Progress = std::function<void(int64_t done, int64_t total)>;

    /// What check() did: images decoded now, images whose verdict came from the cache, and
    /// images left unchecked (decode false).
    struct CheckSummary {
        bool decode = false;
        int64_t decoded = 0;
        int64_t cached = 0;
        int64_t unchecked = 0;
    };

    /// Lists the folder `root` (IoError as DatasetIndex::scanFolder) and loads its verdicts.
    static PhotoListing folder(const std::string& root);
    /// Opens the archive `path` (IoError / DataError as ArchiveReader) and loads its verdicts.
    /// Entries cut short by a truncated archive are skipped as "truncated archive entry".
    static PhotoListing archive(const std::string& path);
    /// The listing of an open archive (no verdicts); `keepAlive` owns `reader` for the listing's
    /// CSV reader (empty when the listing is used while `reader` lives).
    static DatasetIndex::Listing archiveListing(const ArchiveReader& reader, std::shared_ptr<const ArchiveReader> keepAlive = nullptr);

    /// The checker's verdict for one file's bytes: "ok" or the ImageDecoder reason name.
    static std::string verdictOf(const uint8_t* bytes, size_t size, const std::string& nameForMessages);
    /// True for verdicts that belong to the file's bytes alone (stored in the cache).
    static bool cacheable(const std::string& verdict) { return verdict != kUnreadable && verdict != "too-small"; }

    /// "folder 'ROOT'" or "<format> 'PATH'", for messages and describe().
    const std::string& name() const { return name_; }
    const ByteReader& reader() const { return read_; }
    const std::shared_ptr<ImageVerdictCache>& verdicts() const { return cache_; }
    const DatasetIndex::Listing& listing() const { return listing_; }

    /// Gives every image the city filter of `options` keeps a verdict: from the cache, else (when
    /// `decode`) by reading and decoding it on `threads` threads (0: all cores). New verdicts are
    /// saved to the cache (verdicts of files no longer listed are dropped). Stops early when
    /// `cancel` becomes true (what was decoded is kept).
    CheckSummary check(const IndexOptions& options, bool decode = true, int threads = 0, const Progress& progress = {},
                       const std::atomic<bool>* cancel = nullptr);

    /// The index of `options` with every file known to be bad skipped under its verdict.
    DatasetIndex index(const IndexOptions& options) const;
    /// Per entry of `index` (made by index()): 1 when its verdict is known (then "ok"), else 0.
    std::vector<uint8_t> known(const DatasetIndex& index) const;

private:
    std::string name_;
    DatasetIndex::Listing listing_;
    ByteReader read_;
    std::shared_ptr<ImageVerdictCache> cache_;
    ImageVerdictCache::Map known_;  ///< stored verdicts plus those check() found
};

// ---------------------------------------------------------------------------------------------

inline PhotoListing PhotoListing::folder(const std::string& root) {
    PhotoListing l;
    l.listing_ = DatasetIndex::listFolder(root);
    l.name_ = "folder '" + root + "'";
    l.read_ = PackedCacheWriter::folderReader(root);
    l.cache_ = ImageVerdictCache::forFolder(l.listing_.rootPath, kChecker);
    l.known_ = l.cache_->load();
    return l;
}

inline DatasetIndex::Listing PhotoListing::archiveListing(const ArchiveReader& reader, std::shared_ptr<const ArchiveReader> keepAlive) {
    DatasetIndex::Listing l;
    l.rootPath = reader.path();
    auto byPath = std::make_shared<std::unordered_map<std::string, size_t>>();  // normalised entry path -> entry number (intact entries)
    for (size_t i = 0; i < reader.size(); ++i) {
        const ArchiveReader::Entry& e = reader.entry(i);
        if (reader.intact(i)) {
            l.files.push_back({e.name, e.size, 0});
            byPath->emplace(DatasetIndex::normalizePath(e.name), i);
        } else {
            ++l.skipped[kTruncatedEntry];
            l.skippedFiles[kTruncatedEntry].push_back(DatasetIndex::normalizePath(e.name));
        }
    }
    const ArchiveReader* r = &reader;
    l.readText = [r, keepAlive, byPath](const std::string& name) -> std::optional<std::string> {
        const auto it = byPath->find(DatasetIndex::normalizePath(name));
        if (it == byPath->end()) return std::nullopt;
        try {
            const auto bytes = r->read(it->second);
            return std::string(bytes.begin(), bytes.end());
        } catch (const Error&) {
            return std::nullopt;
        }
    };
    return l;
}

inline PhotoListing PhotoListing::archive(const std::string& path) {
    auto reader = std::make_shared<const ArchiveReader>(path);
    PhotoListing l;
    l.listing_ = archiveListing(*reader, reader);
    l.name_ = reader->formatName() + " '" + path + "'";
    auto byPath = std::make_shared<std::unordered_map<std::string, size_t>>();
    for (size_t i = 0; i < reader->size(); ++i)
        if (reader->intact(i)) byPath->emplace(DatasetIndex::normalizePath(reader->entry(i).name), i);
    l.read_ = [reader, byPath](const ImageEntry& e) {
        const auto it = byPath->find(e.path);
        if (it == byPath->end()) throw DataError("archive '" + reader->path() + "' has no entry '" + e.path + "'");
        return reader->read(it->second);
    };
    l.cache_ = ImageVerdictCache::forArchive(path, kChecker);
    l.known_ = l.cache_->load();
    return l;
}

inline std::string PhotoListing::verdictOf(const uint8_t* bytes, size_t size, const std::string& name) {
    try {
        const ImageInfo info = ImageDecoder::probe(bytes, size, name);
        const int shortSide = std::min(info.width, info.height);
        DecodeRequest request;  // the default pixel limit, as the loader's
        request.cropSide = shortSide;
        request.targetSide = std::max(1, shortSide / 8);
        ImageDecoder::decode(bytes, size, request, name);
        return ImageVerdictCache::kOk;
    } catch (const BadImageError& e) {
        return ImageDecoder::reasonName(e.reason());
    }
}

inline PhotoListing::CheckSummary PhotoListing::check(const IndexOptions& options, bool decode, int threads, const Progress& progress,
                                                      const std::atomic<bool>* cancel) {
    // The candidates: every image the city filter keeps, before the cap and the split (those
    // depend on which images are good).
    IndexOptions cities;
    cities.includeCities = options.includeCities;
    cities.excludeCities = options.excludeCities;
    const DatasetIndex candidates = DatasetIndex::fromListing(listing_, cities);
    CheckSummary summary;
    summary.decode = decode;
    std::vector<const ImageEntry*> todo;
    for (const ImageEntry& e : candidates.entries()) {
        if (ImageVerdictCache::lookup(known_, e.path, e.size, e.mtimeNs))
            ++summary.cached;
        else
            todo.push_back(&e);
    }
    if (!decode) {
        summary.unchecked = static_cast<int64_t>(todo.size());
        return summary;
    }
    std::vector<std::string> verdicts(todo.size());
    std::atomic<size_t> next{0};
    std::atomic<int64_t> done{0};
    std::atomic<bool> failed{false};
    std::exception_ptr failure;  // anything but a bad file (e.g. out of memory): rethrown after the join
    auto work = [&] {
        for (;;) {
            if ((cancel && cancel->load()) || failed.load()) return;
            const size_t i = next.fetch_add(1);
            if (i >= todo.size()) return;
            const ImageEntry& e = *todo[i];
            try {
                const std::vector<uint8_t> bytes = read_(e);
                verdicts[i] = verdictOf(bytes.data(), bytes.size(), name_ + ": " + e.path);
            } catch (const Error&) {
                verdicts[i] = kUnreadable;
            } catch (...) {
                if (!failed.exchange(true)) failure = std::current_exception();
                return;
            }
            done.fetch_add(1);
        }
    };
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(1, todo.size())));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(work);
    if (progress) {
        while (done.load() < static_cast<int64_t>(todo.size()) && !(cancel && cancel->load()) && !failed.load()) {
            progress(done.load(), static_cast<int64_t>(todo.size()));
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    if (progress) progress(done.load(), static_cast<int64_t>(todo.size()));
    for (size_t i = 0; i < todo.size(); ++i) {
        if (verdicts[i].empty()) {  // cancelled before it was checked
            ++summary.unchecked;
            continue;
        }
        const ImageEntry& e = *todo[i];
        known_[e.path] = ImageVerdictCache::Verdict{e.size, e.mtimeNs, verdicts[i]};
        if (cacheable(verdicts[i])) cache_->record(e.path, e.size, e.mtimeNs, verdicts[i]);
        ++summary.decoded;
    }
    std::unordered_set<std::string> live;
    for (const DatasetIndex::ListedFile& f : listing_.files) live.insert(DatasetIndex::normalizePath(f.path));
    cache_->save(&live);
    return summary;
}

inline DatasetIndex PhotoListing::index(const IndexOptions& options) const {
    DatasetIndex::Listing l;
    l.rootPath = listing_.rootPath;
    l.root = listing_.root;
    l.readText = listing_.readText;
    l.skipped = listing_.skipped;
    l.skippedFiles = listing_.skippedFiles;
    l.files.reserve(listing_.files.size());
    for (const DatasetIndex::ListedFile& f : listing_.files) {
        const std::string path = DatasetIndex::normalizePath(f.path);
        const std::string* v = ImageVerdictCache::lookup(known_, path, f.size, f.mtimeNs);
        if (v && *v != ImageVerdictCache::kOk) {
            ++l.skipped[*v];
            l.skippedFiles[*v].push_back(path);
        } else {
            l.files.push_back(f);
        }
    }
    return DatasetIndex::fromListing(l, options);
}

inline std::vector<uint8_t> PhotoListing::known(const DatasetIndex& index) const {
    std::vector<uint8_t> out;
    out.reserve(index.entries().size());
    for (const ImageEntry& e : index.entries()) out.push_back(ImageVerdictCache::lookup(known_, e.path, e.size, e.mtimeNs) ? 1 : 0);
    return out;
}

}  // namespace streetgan
