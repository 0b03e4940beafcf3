// Real photos (a folder tree or an archive; MSLS layout recognised) as an ImageSource: a
// DatasetIndex for the selection, a reader for an entry's bytes, ImageDecoder (DCT-domain
// reduction) and the reference Augmentation per image.
//
// A bad image (corrupt, truncated, not an image, too small for the crop) is counted by reason
// and replaced, deterministically, by the next usable image in index order, so batches stay full
// and a run stays reproducible; if kMaxAttempts images in a row fail, load() throws DataError
// naming the last reason. Thread-safe: load() from many loader threads at once.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/dataset/DatasetIndex.h"
#include "ml/data/Augmentation.h"
#include "ml/data/ImageSource.h"

namespace streetgan {

class ArchiveReader;

class PhotoSource : public ImageSource {
public:
    static constexpr int kMaxAttempts = 64;

    /// An entry's file bytes; called from many threads at once. Throws to mark the entry bad.
    using ByteReader = std::function<std::vector<uint8_t>(const ImageEntry&)>;

    /// Photos listed by `index`, read through `read`; `name` is the --data spec for messages.
    /// Requires at least one image that decodes (DataError, before any training starts).
    PhotoSource(std::string name, DatasetIndex index, ByteReader read, const AugmentParams& augment);
    /// A folder tree: scans `root` (IoError/ConfigError) and reads files from it.
    static std::shared_ptr<PhotoSource> folder(const std::string& root, const IndexOptions& index, const AugmentParams& augment);
    /// A zip, tar or tar.gz archive (such as the MSLS download batches), read in place with
    /// random access; its listing is cached next to it (see ArchiveReader). Damaged entries of a
    /// truncated archive are counted as skipped.
    static std::shared_ptr<PhotoSource> archive(const std::string& path, const IndexOptions& index, const AugmentParams& augment);
    /// The index of an archive's photos (no decoding), e.g. for `data stats`.
    static DatasetIndex archiveIndex(const ArchiveReader& reader, const IndexOptions& index);

    int64_t size() const override { return index_.size(); }
    void load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const override;
    std::string describe() const override;
    double noiseStd() const override { return augment_.noiseStd; }
    std::map<std::string, int64_t> skipped() const override;

    const DatasetIndex& index() const { return index_; }

private:
    std::string name_;
    DatasetIndex index_;
    ByteReader read_;
    AugmentParams augment_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, int64_t> badImages_;
};

}  // namespace streetgan
