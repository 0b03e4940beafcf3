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
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/dataset/ArchiveReader.h"
#include "base/dataset/DatasetIndex.h"
#include "base/dataset/DatasetNames.h"
#include "base/dataset/ImageVerdictCache.h"

namespace streetgan {

namespace s3 {
class S3ArchiveDataset;
class S3Dataset;
}  // namespace s3

class PhotoListing {
public:
    /// Names the checks behind a verdict (part of the cache key).
    static constexpr const char* kChecker = "probe+decode/8 v1";
    static constexpr const char* kUnreadable = "unreadable file";
    static constexpr const char* kTruncatedEntry = dataset_names::kTruncatedEntry;

    /// An image's bytes; thread-safe; throws Error when it cannot be read.
    using ByteReader = std::function<std::vector<uint8_t>(const ImageEntry&)>;
    /// Announces images the reader will be asked for soon, in that order (an S3 listing's
    /// fetcher gets them ahead, concurrently); empty for local data, where reads are cheap.
    using Prefetcher = std::function<void(const std::vector<const ImageEntry*>& upcoming)>;
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
    /// The photo folder under s3://bucket/prefix (S3Dataset: listing cached, objects fetched
    /// concurrently and cached on disk as `options` say) and its verdicts, kept in the S3 cache
    /// folder keyed by the endpoint and the URL (objects have no mtime: a verdict holds for a path
    /// and size).
    static PhotoListing s3(const std::shared_ptr<const s3::S3Dataset>& bucket);
    /// A zip or plain tar batch in a bucket read in place (S3ArchiveDataset: entries fetched as
    /// byte ranges, concurrently and through the object cache) and its verdicts, kept in the S3
    /// cache folder keyed by the endpoint, the URL and the object's ETag. Entries cut short by a
    /// truncated object are skipped as "truncated archive entry", as for a local archive.
    static PhotoListing s3Archive(const std::shared_ptr<const s3::S3ArchiveDataset>& batch);
    /// A reader that, reading `entries[i]`, announces the next `window` entries to `prefetch`
    /// (in `entries`' order: a reader that goes through them in order, such as `data pack`, never
    /// waits for a round trip once warm). `read` itself when `prefetch` is empty.
    static ByteReader readingAhead(const std::vector<ImageEntry>& entries, ByteReader read, Prefetcher prefetch, int64_t window);
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
    /// Empty for local data; see Prefetcher.
    const Prefetcher& prefetcher() const { return prefetch_; }
    /// Images worth announcing ahead of the one read (0 when there is no prefetcher).
    int64_t prefetchWindow() const { return prefetchWindow_; }
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
    Prefetcher prefetch_;
    int64_t prefetchWindow_ = 0;
    std::shared_ptr<ImageVerdictCache> cache_;
    ImageVerdictCache::Map known_;  ///< stored verdicts plus those check() found
};

}  // namespace streetgan
