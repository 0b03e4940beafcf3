// Opens the data source named by a --data spec.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/dataset/DatasetIndex.h"
#include "base/s3/S3LoadOptions.h"
#include "ml/dataset/Augmentation.h"
#include "ml/dataset/ImageSource.h"
#include "ml/dataset/PackedCacheWriter.h"
#include "ml/dataset/PhotoListing.h"

namespace streetgan {

struct TrainConfig;

namespace s3 {
class S3Dataset;
}

class DataSources {
public:
    /// "synthetic": the procedural street scenes (cfg.syntheticImages per epoch, cfg.seed).
    /// Throws DataError naming the spec when it cannot be opened or is not supported.
    /// A folder: its images (MSLS layout recognised), selected and augmented as cfg says.
    /// s3://bucket/prefix: a packed cache uploaded there (index.json and shard_00000.bin below
    /// the prefix), else a photo folder (S3Dataset, read as cfg's s3 options say).
    static std::shared_ptr<const ImageSource> open(const std::string& spec, const TrainConfig& cfg);

    /// A training run's source: open()'s, except for photos (a folder, or an s3:// prefix of
    /// photos), where cfg.dataPath (DataPathChoice) decides between decoding them and a packed
    /// cache of them: the one PackRegistry holds for the same photos and settings, else (where the
    /// choice says so) one packed now into PackRegistry::defaultDir and recorded. `cuda` and
    /// `worldSize`: the run's device and ranks. `say` gets the line saying what was chosen and
    /// why (none when there is nothing to say) and, while packing, the progress. `cancel` (may be
    /// null; the run's stop flag) stops packing between small batches (the pack resumes where it
    /// stopped next time).
    /// Throws as open(), ConfigError where --data-path packed cannot be followed, IoError /
    /// DataError from packing, and DataError when packing was cancelled.
    static std::shared_ptr<const ImageSource> openForTraining(const std::string& spec, const TrainConfig& cfg, bool cuda, int worldSize,
                                                              const std::function<void(const std::string&)>& say, const std::atomic<bool>* cancel = nullptr);
    /// What packing the photos of `spec` (a folder, or an s3:// prefix of photos: `opened` when
    /// already open) reads: the index of cfg's selection and a reader of each image's bytes (from
    /// S3: read ahead). The one place `data pack` and --data-path packed get them.
    struct PackInput {
        /// The photos as listed (a folder or an s3:// prefix), which the reader reads through and a
        /// run that decodes them after all opens again without listing them a second time.
        std::optional<PhotoListing> listing;
        DatasetIndex index;
        PackedCacheWriter::ByteReader read;
    };
    /// The `data pack` command line that packs the photos of `spec` as a run with `cfg` reads them
    /// (its size, augmentation, selection and endpoint, non-default values only): what advice gives.
    static std::string packCommand(const std::string& spec, const TrainConfig& cfg);
    static PackInput packInput(const std::string& spec, const TrainConfig& cfg, std::shared_ptr<const s3::S3Dataset> opened = nullptr);
    /// PackedCacheWriter::pack of `input` at cfg's size and augmentation into outDir and, once
    /// complete, its line in the PackRegistry (for runs on `spec` to find).
    static PackedCacheWriter::Summary pack(const PackInput& input, const std::string& spec, const TrainConfig& cfg, const std::string& outDir,
                                           const PackedCacheWriter::Progress& progress, const std::atomic<bool>* cancel);
    /// Held-out real photos of `spec` for evaluation: the validation split by key hash (the run's
    /// validation_percent, or 5% when the run used none), centre crop without random shift, flip or
    /// noise. Throws DataError for synthetic specs (their held-out scenes are indexed directly).
    static std::shared_ptr<const ImageSource> openHeldOut(const std::string& spec, const TrainConfig& cfg);
    /// The selection (cities, sequence cap, train split) a run's config asks for.
    static IndexOptions indexOptions(const TrainConfig& cfg);
    /// A folder of photos or a zip/tar batch (PhotoSource); ConfigError in a build without photos
    /// (BuildFeatures).
    static std::shared_ptr<const ImageSource> photos(const std::string& spec, const IndexOptions& index, const AugmentParams& augment,
                                                     const s3::S3LoadOptions& s3 = {});
    /// The s3 options of a run's config (--s3-endpoint, --s3-concurrency, --s3-cache...).
    static s3::S3LoadOptions s3Options(const TrainConfig& cfg);
    /// Opens the prefix s3://bucket/prefix for reading (listing cached); S3Error when it cannot
    /// be listed.
    static std::shared_ptr<const s3::S3Dataset> openS3(const std::string& spec, const s3::S3LoadOptions& options);
    /// Whether an s3:// spec names an archive object (.zip, .tar, .tar.gz, .tgz), not a prefix.
    static bool isS3Archive(const std::string& spec);
    /// The photos of an s3:// spec: a folder's (PhotoListing::s3 of `opened`, or of the prefix
    /// opened now), or an archive object's. The one dispatch for photos(), data stats and pack.
    static PhotoListing s3Photos(const std::string& spec, const s3::S3LoadOptions& options, std::shared_ptr<const s3::S3Dataset> opened = nullptr);
    /// Whether the data set is a packed cache (index.json and shard_00000.bin at its top).
    static bool isPackedCache(const s3::S3Dataset& bucket);
    /// The reference augmentation with the run's parameters, at the model's resolution.
    static AugmentParams augmentParams(const TrainConfig& cfg);
};

}  // namespace streetgan
