#include "ml/dataset/DataSources.h"

#include <filesystem>

#include "base/run/TrainConfig.h"
#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "ml/dataset/PackedCacheSource.h"
#include "ml/dataset/PhotoSource.h"
#include "ml/dataset/SyntheticSource.h"

namespace streetgan {

std::shared_ptr<const ImageSource> DataSources::open(const std::string& spec, const TrainConfig& cfg) {
    if (spec == "synthetic") return std::make_shared<SyntheticSource>(cfg.seed, cfg.syntheticImages);
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

std::shared_ptr<const ImageSource> DataSources::photos(const std::string& spec, const IndexOptions& index, const AugmentParams& augment) {
#if STREETGAN_WITH_PHOTOS
    std::error_code ec;
    if (std::filesystem::is_directory(spec, ec)) return PhotoSource::folder(spec, index, augment);
    return PhotoSource::archive(spec, index, augment);  // not an archive: DataError naming it
#else
    BuildFeatures::missing("data source '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
}

std::shared_ptr<const ImageSource> DataSources::openHeldOut(const std::string& spec, const TrainConfig& cfg) {
    IndexOptions o = indexOptions(cfg);
    o.validationPercent = cfg.validationPercent > 0 ? cfg.validationPercent : 5.0;
    o.split = IndexOptions::Split::Validation;
    AugmentParams a = augmentParams(cfg);
    a.maxShift = 0;
    a.noiseStd = 0;
    a.flip = false;
    if (spec == "synthetic") throw DataError("held-out synthetic scenes are indexed directly, not opened as a source");
    return photos(spec, o, a);
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
