// Real photos (a folder tree or an archive; MSLS layout recognised) as an ImageSource: a
// DatasetIndex for the selection, a reader for an entry's bytes, ImageDecoder (DCT-domain
// reduction) and the reference Augmentation per image.
//
// The folder and archive sources are opened through PhotoListing: files whose cached verdict is
// bad (see ImageVerdictCache) are not in the index at all, counted in skipped() by reason.
// A bad image found while loading (corrupt, truncated, not an image, too small for the crop) is
// counted by reason ONCE per source (per run, not per epoch: its state is remembered and it is
// never read again), its verdict recorded into the verdict cache when it belongs to the file,
// and it is replaced, deterministically, by the next usable image in index order, so batches stay
// full and a run stays reproducible; if kMaxAttempts images fail within one load(), or no usable
// image is left, load() throws DataError naming the last reason. The verdicts it records ("ok"
// too) are saved once every entry has one, and when the source is destroyed.
// Thread-safe: load() from many loader threads at once.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/dataset/DatasetIndex.h"
#include "base/dataset/ImageVerdictCache.h"
#include "ml/dataset/Augmentation.h"
#include "ml/dataset/ImageSource.h"

namespace streetgan {

class ArchiveReader;
class PhotoListing;

class PhotoSource : public ImageSource {
public:
    static constexpr int kMaxAttempts = 64;

    /// An entry's file bytes; called from many threads at once. Throws to mark the entry bad.
    using ByteReader = std::function<std::vector<uint8_t>(const ImageEntry&)>;

    /// Where the source records the verdicts it finds: the cache, and per entry of the index
    /// whether its verdict is already known (then "ok"; empty: none known).
    struct Verdicts {
        std::shared_ptr<ImageVerdictCache> cache;
        std::vector<uint8_t> known;
    };

    /// Photos listed by `index`, read through `read`; `name` is the --data spec for messages.
    /// Requires at least one image that decodes (DataError, before any training starts).
    PhotoSource(std::string name, DatasetIndex index, ByteReader read, const AugmentParams& augment, Verdicts verdicts = {});
    ~PhotoSource() override;
    PhotoSource(const PhotoSource&) = delete;
    PhotoSource& operator=(const PhotoSource&) = delete;
    /// A folder tree: scans `root` (IoError/ConfigError) and reads files from it.
    static std::shared_ptr<PhotoSource> folder(const std::string& root, const IndexOptions& index, const AugmentParams& augment);
    /// A zip, tar or tar.gz archive (such as the MSLS download batches), read in place with
    /// random access; its listing is cached next to it (see ArchiveReader). Damaged entries of a
    /// truncated archive are counted as skipped.
    static std::shared_ptr<PhotoSource> archive(const std::string& path, const IndexOptions& index, const AugmentParams& augment);
    /// The index of an archive's photos (no decoding, no verdicts).
    static DatasetIndex archiveIndex(const ArchiveReader& reader, const IndexOptions& index);
    /// The source of an opened listing (its known-bad files skipped, its verdicts recorded).
    static std::shared_ptr<PhotoSource> fromListing(const PhotoListing& listing, const IndexOptions& index, const AugmentParams& augment);

    int64_t size() const override { return index_.size(); }
    void load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const override;
    std::string describe() const override;
    bool decodesPhotos() const override { return true; }
    double noiseStd() const override { return augment_.noiseStd; }
    std::map<std::string, int64_t> skipped() const override;
    int64_t prefetchWindow() const override { return prefetch_ ? prefetchWindow_ : 0; }
    /// Announces the entries of `indices` (known-bad ones left out) to the listing's prefetcher.
    void prefetch(const int64_t* indices, size_t n) const override;
    /// Reads ahead through `prefetch` (PhotoListing::prefetcher); set before the source is shared.
    void setPrefetcher(std::function<void(const std::vector<const ImageEntry*>&)> prefetch, int64_t window);

    const DatasetIndex& index() const { return index_; }

private:
    enum : uint8_t { kUnknown = 0, kGood = 1, kBad = 2 };
    /// Settles entry i's state for this run from `from` (kUnknown or kGood) to good or bad;
    /// counts and records the verdict when this call made the change.
    void settle(size_t i, uint8_t from, const std::string& verdict) const;

    std::string name_;
    DatasetIndex index_;
    ByteReader read_;
    std::function<void(const std::vector<const ImageEntry*>&)> prefetch_;
    int64_t prefetchWindow_ = 0;
    AugmentParams augment_;
    std::shared_ptr<ImageVerdictCache> cache_;
    std::unique_ptr<std::atomic<uint8_t>[]> state_;  ///< per entry: kUnknown, kGood or kBad
    mutable std::atomic<int64_t> unknown_{0};        ///< entries still kUnknown
    mutable std::mutex mutex_;
    mutable std::map<std::string, int64_t> badImages_;
};

}  // namespace streetgan
