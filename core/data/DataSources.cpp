#include "data/DataSources.h"

#include <filesystem>

#include "data/FolderSource.h"
#include "data/SyntheticSource.h"
#include "train/TrainConfig.h"
#include "util/Errors.h"

namespace streetgan {

std::shared_ptr<const ImageSource> DataSources::open(const std::string& spec, const TrainConfig& cfg) {
    if (spec == "synthetic") return std::make_shared<SyntheticSource>(cfg.seed, cfg.syntheticImages);
    std::error_code ec;
    if (std::filesystem::is_directory(spec, ec)) return std::make_shared<FolderSource>(spec, indexOptions(cfg), augmentParams(cfg));
    if (!std::filesystem::exists(spec, ec)) throw DataError("data source '" + spec + "' does not exist: give a folder of images or 'synthetic'");
    throw DataError("data source '" + spec + "' is not a folder: archives and packed caches are not supported by this build yet");
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
