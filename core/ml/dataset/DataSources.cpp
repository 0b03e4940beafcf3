#include "ml/dataset/DataSources.h"

#include <filesystem>

#include "base/run/TrainConfig.h"
#include "base/s3/S3ArchiveDataset.h"
#include "base/s3/S3Dataset.h"
#include "base/s3/S3Url.h"
#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "ml/dataset/PackedCacheSource.h"
#include "ml/dataset/PhotoListing.h"
#include "ml/dataset/PhotoSource.h"
#include "ml/dataset/SyntheticSource.h"

namespace streetgan {

std::shared_ptr<const ImageSource> DataSources::open(const std::string& spec, const TrainConfig& cfg) {
    if (spec == "synthetic") return std::make_shared<SyntheticSource>(cfg.seed, cfg.syntheticImages);
    if (s3::S3Url::isS3(spec)) {
        if (isS3Archive(spec)) return photos(spec, indexOptions(cfg), augmentParams(cfg), s3Options(cfg));
        const auto bucket = openS3(spec, s3Options(cfg));
#if STREETGAN_WITH_PHOTOS
        if (!isPackedCache(*bucket)) return PhotoSource::fromListing(s3Photos(spec, s3Options(cfg), bucket), indexOptions(cfg), augmentParams(cfg));
#else
        if (!isPackedCache(*bucket)) BuildFeatures::missing("data source '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
        auto cache = PackedCacheSource::s3(bucket);
        if (cache->params().size != cfg.model.imgSize)
            throw DataError("packed cache '" + spec + "' holds " + std::to_string(cache->params().size) + " px images but the model is " +
                            std::to_string(cfg.model.imgSize) + " px: pack it again with --size " + std::to_string(cfg.model.imgSize));
        return cache;
    }
    std::error_code ec;
    if (std::filesystem::exists(spec + "/index.json", ec) && std::filesystem::exists(spec + "/shard_00000.bin", ec)) {
        auto cache = std::make_shared<PackedCacheSource>(spec);
        if (cache->params().size != cfg.model.imgSize)
            throw DataError("packed cache '" + spec + "' holds " + std::to_string(cache->params().size) + " px images but the model is " +
                            std::to_string(cfg.model.imgSize) + " px: pack it again with --size " + std::to_string(cfg.model.imgSize));
        return cache;
    }
    if (!std::filesystem::exists(spec, ec)) throw DataError("data source '" + spec + "' does not exist: give a folder of images or 'synthetic'");
    return photos(spec, indexOptions(cfg), augmentParams(cfg));
}

std::shared_ptr<const ImageSource> DataSources::photos(const std::string& spec, const IndexOptions& index, const AugmentParams& augment,
                                                       const s3::S3LoadOptions& s3) {
#if STREETGAN_WITH_PHOTOS
    if (s3::S3Url::isS3(spec)) return PhotoSource::fromListing(s3Photos(spec, s3), index, augment);
    std::error_code ec;
    if (std::filesystem::is_directory(spec, ec)) return PhotoSource::folder(spec, index, augment);
    return PhotoSource::archive(spec, index, augment);  // not an archive: DataError naming it
#else
    (void)s3;
    BuildFeatures::missing("data source '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
}

s3::S3LoadOptions DataSources::s3Options(const TrainConfig& cfg) {
    s3::S3LoadOptions o;
    o.endpoint = cfg.s3Endpoint;
    o.concurrency = cfg.s3Concurrency;
    o.cacheDir = cfg.s3Cache;
    o.cacheGb = cfg.s3CacheGb;
    o.listingMaxAgeHours = cfg.s3ListingMaxAge;
    return o;
}

std::shared_ptr<const s3::S3Dataset> DataSources::openS3(const std::string& spec, const s3::S3LoadOptions& options) {
    return s3::S3Dataset::open(spec, options);
}

bool DataSources::isS3Archive(const std::string& spec) {
    for (const std::string ext : {".zip", ".tar", ".tar.gz", ".tgz"})
        if (spec.size() > ext.size() && spec.compare(spec.size() - ext.size(), ext.size(), ext) == 0) return true;
    return false;
}

PhotoListing DataSources::s3Photos(const std::string& spec, const s3::S3LoadOptions& options, std::shared_ptr<const s3::S3Dataset> opened) {
#if STREETGAN_WITH_PHOTOS
    if (isS3Archive(spec)) return PhotoListing::s3Archive(s3::S3ArchiveDataset::open(spec, options));
    return PhotoListing::s3(opened ? std::move(opened) : openS3(spec, options));
#else
    // PhotoListing is not compiled without photos (the GPU bundle reads packed caches only).
    (void)options;
    (void)opened;
    BuildFeatures::missing("data source '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
}

bool DataSources::isPackedCache(const s3::S3Dataset& bucket) { return bucket.find("index.json") && bucket.find("shard_00000.bin"); }

std::shared_ptr<const ImageSource> DataSources::openHeldOut(const std::string& spec, const TrainConfig& cfg) {
    IndexOptions o = indexOptions(cfg);
    o.validationPercent = cfg.validationPercent > 0 ? cfg.validationPercent : 5.0;
    o.split = IndexOptions::Split::Validation;
    AugmentParams a = augmentParams(cfg);
    a.maxShift = 0;
    a.noiseStd = 0;
    a.flip = false;
    if (spec == "synthetic") throw DataError("held-out synthetic scenes are indexed directly, not opened as a source");
    return photos(spec, o, a, s3Options(cfg));
}

IndexOptions DataSources::indexOptions(const TrainConfig& cfg) {
    IndexOptions o;
    o.includeCities = cfg.cities;
    o.excludeCities = cfg.excludeCities;
    o.maxPerSequence = cfg.maxPerSequence;
    o.validationPercent = cfg.validationPercent;
    o.split = cfg.validationPercent > 0 ? IndexOptions::Split::Train : IndexOptions::Split::All;
    return o;
}

AugmentParams DataSources::augmentParams(const TrainConfig& cfg) {
    AugmentParams a;
    a.size = static_cast<int>(cfg.model.imgSize);
    a.maxShift = cfg.maxShift;
    a.cropFactor = cfg.cropFactor;
    a.noiseStd = cfg.augNoise;
    a.flip = cfg.flip;
    return a;
}

}  // namespace streetgan
