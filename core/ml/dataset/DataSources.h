// Opens the data source named by a --data spec.
#pragma once

#include <memory>
#include <string>

#include "base/dataset/DatasetIndex.h"
#include "ml/dataset/Augmentation.h"
#include "ml/dataset/ImageSource.h"

namespace streetgan {

struct TrainConfig;

class DataSources {
public:
    /// "synthetic": the procedural street scenes (cfg.syntheticImages per epoch, cfg.seed).
    /// Throws DataError naming the spec when it cannot be opened or is not supported.
    /// A folder: its images (MSLS layout recognised), selected and augmented as cfg says.
    static std::shared_ptr<const ImageSource> open(const std::string& spec, const TrainConfig& cfg);
    /// Held-out real photos of `spec` for evaluation: the validation split by key hash (the run's
    /// validation_percent, or 5% when the run used none), centre crop without random shift, flip or
    /// noise. Throws DataError for synthetic specs (their held-out scenes are indexed directly).
    static std::shared_ptr<const ImageSource> openHeldOut(const std::string& spec, const TrainConfig& cfg);
    /// The selection (cities, sequence cap, train split) a run's config asks for.
    static IndexOptions indexOptions(const TrainConfig& cfg);
    /// A folder of photos or a zip/tar batch (PhotoSource); ConfigError in a build without photos
    /// (BuildFeatures).
    static std::shared_ptr<const ImageSource> photos(const std::string& spec, const IndexOptions& index, const AugmentParams& augment);
    /// The reference augmentation with the run's parameters, at the model's resolution.
    static AugmentParams augmentParams(const TrainConfig& cfg);
};

}  // namespace streetgan
