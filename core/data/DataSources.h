// Opens the data source named by a --data spec.
#pragma once

#include <memory>
#include <string>

#include "data/ImageSource.h"

namespace streetgan {

struct TrainConfig;

class DataSources {
public:
    /// "synthetic": the procedural street scenes (cfg.syntheticImages per epoch, cfg.seed).
    /// Throws DataError naming the spec when it cannot be opened or is not supported.
    static std::shared_ptr<const ImageSource> open(const std::string& spec, const TrainConfig& cfg);
};

}  // namespace streetgan
