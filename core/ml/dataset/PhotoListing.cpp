#include "ml/dataset/PhotoListing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/s3/S3ArchiveDataset.h"
#include "base/s3/S3Dataset.h"
#include "base/util/Errors.h"
#include "base/util/Fnv1a.h"
#include "base/util/Paths.h"
#include "ml/dataset/ImageDecoder.h"
#include "ml/dataset/PackedCacheWriter.h"

namespace streetgan {

PhotoListing PhotoListing::folder(const std::string& root) {
    PhotoListing l;
    l.listing_ = DatasetIndex::listFolder(root);
    l.name_ = "folder '" + root + "'";
    l.read_ = PackedCacheWriter::folderReader(root);
    l.cache_ = ImageVerdictCache::forFolder(l.listing_.rootPath, kChecker);
    l.known_ = l.cache_->load();
    return l;
}

PhotoListing PhotoListing::s3(const std::shared_ptr<const s3::S3Dataset>& bucket) {
    const std::shared_ptr<const s3::S3Dataset>& ds = bucket;
    const std::string& spec = ds->spec();
    const s3::S3LoadOptions& options = ds->options();
    PhotoListing l;
    l.listing_ = ds->listing();
    l.name_ = "S3 folder '" + spec + "'";
    l.read_ = [ds](const ImageEntry& e) {
        const std::string bytes = ds->fetcher().get(ds->request(e.path));
        // By pointers, one memcpy: from char iterators it was a byte loop, 2% of the loader's CPU.
        const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
        return std::vector<uint8_t>(data, data + bytes.size());
    };
    l.prefetch_ = [ds](const std::vector<const ImageEntry*>& upcoming) {
        std::vector<s3::S3Fetcher::Request> requests;
        requests.reserve(upcoming.size());
        for (const ImageEntry* e : upcoming)
            if (ds->find(e->path)) requests.push_back(ds->request(e->path));
        ds->fetcher().prefetch(requests);
    };
    // Enough announced to keep every request slot busy while the loader consumes what came in.
    l.prefetchWindow_ = std::max<int64_t>(int64_t{8} * std::max(1, options.concurrency), int64_t{2} * ds->fetcher().maxConcurrency());
    // Named by the endpoint and the URL, as the listing's file.
    const std::string name = Fnv1a::hex(options.endpoint + "|" + spec) + ".sgverdicts";
    l.cache_ = std::make_shared<ImageVerdictCache>(std::vector<std::string>{ds->cacheDir() + "/verdicts/" + name},
                                                   "s3\n" + std::string(kChecker) + "\n" + options.endpoint + "\n" + spec);
    l.known_ = l.cache_->load();
    return l;
}

PhotoListing PhotoListing::s3Archive(const std::shared_ptr<const s3::S3ArchiveDataset>& batch) {
    const std::shared_ptr<const s3::S3ArchiveReader>& reader = batch->reader();
    PhotoListing l;
    l.listing_ = reader->listing(reader);
    l.name_ = reader->name();
    l.read_ = [batch](const ImageEntry& e) { return batch->read(e.path); };
    l.prefetch_ = [batch](const std::vector<const ImageEntry*>& upcoming) {
        std::vector<std::string> paths;
        paths.reserve(upcoming.size());
        for (const ImageEntry* e : upcoming) paths.push_back(e->path);
        batch->prefetch(paths);
    };
    l.prefetchWindow_ = int64_t{8} * std::max(1, batch->options().concurrency);
    // Verdicts beside the bucket folders' (S3 cache folder), keyed by the object's version too.
    const std::string identity = batch->options().endpoint + "|" + reader->uri();
    const std::string file = std::filesystem::path(Paths::cacheFileFor("", identity, ".sgverdicts")).filename().string();
    l.cache_ = std::make_shared<ImageVerdictCache>(std::vector<std::string>{batch->cacheDir() + "/verdicts/" + file},
                                                   "s3 archive\n" + std::string(kChecker) + "\n" + identity + "\n" + reader->etag());
    l.known_ = l.cache_->load();
    return l;
}

PhotoListing::ByteReader PhotoListing::readingAhead(const std::vector<ImageEntry>& entries, ByteReader read, Prefetcher prefetch, int64_t window) {
    if (!prefetch || window <= 0) return read;
    struct Ahead {
        std::vector<ImageEntry> entries;
        std::unordered_map<std::string, size_t> position;
        std::mutex mutex;
        size_t announced = 0;  ///< entries before this one were announced
    };
    auto a = std::make_shared<Ahead>();
    a->entries = entries;
    for (size_t i = 0; i < a->entries.size(); ++i) a->position.emplace(a->entries[i].path, i);
    const auto w = static_cast<size_t>(window);
    return [a, read = std::move(read), prefetch = std::move(prefetch), w](const ImageEntry& e) {
        const auto it = a->position.find(e.path);
        if (it != a->position.end()) {
            std::vector<const ImageEntry*> upcoming;
            {
                std::lock_guard lock(a->mutex);
                const size_t at = it->second;
                // In chunks of half a window, not one by one.
                if (a->announced <= at + w / 2) {
                    const size_t end = std::min(a->entries.size(), at + w + 1);
                    for (size_t k = std::max(a->announced, at); k < end; ++k) upcoming.push_back(&a->entries[k]);
                    a->announced = std::max(a->announced, end);
                }
            }
            if (!upcoming.empty()) prefetch(upcoming);
        }
        return read(e);
    };
}

DatasetIndex::Listing PhotoListing::archiveListing(const ArchiveReader& reader, std::shared_ptr<const ArchiveReader> keepAlive) {
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
    for (const auto& [name, reason] : reader.skippedEntries()) {
        ++l.skipped[reason];
        l.skippedFiles[reason].push_back(DatasetIndex::normalizePath(name));
    }
    const ArchiveReader* r = &reader;
    l.readText = [r, keepAlive = std::move(keepAlive), byPath](const std::string& name) -> std::optional<std::string> {
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

PhotoListing PhotoListing::archive(const std::string& path) {
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

std::string PhotoListing::verdictOf(const uint8_t* bytes, size_t size, const std::string& name) {
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

PhotoListing::CheckSummary PhotoListing::check(const IndexOptions& options, bool decode, int threads, const Progress& progress,
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
    ByteReader read = read_;
    if (prefetch_) {
        std::vector<ImageEntry> order;
        order.reserve(todo.size());
        for (const ImageEntry* e : todo) order.push_back(*e);
        read = readingAhead(order, read_, prefetch_, prefetchWindow_);
    }
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
                const std::vector<uint8_t> bytes = read(e);
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

DatasetIndex PhotoListing::index(const IndexOptions& options) const {
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

std::vector<uint8_t> PhotoListing::known(const DatasetIndex& index) const {
    std::vector<uint8_t> out;
    out.reserve(index.entries().size());
    for (const ImageEntry& e : index.entries()) out.push_back(ImageVerdictCache::lookup(known_, e.path, e.size, e.mtimeNs) ? 1 : 0);
    return out;
}

}  // namespace streetgan
