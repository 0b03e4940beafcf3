#include "data/DataSources.h"

#include "data/SyntheticSource.h"
#include "train/TrainConfig.h"
#include "util/Errors.h"

namespace streetgan {

std::shared_ptr<const ImageSource> DataSources::open(const std::string& spec, const TrainConfig& cfg) {
    if (spec == "synthetic") return std::make_shared<SyntheticSource>(cfg.seed, cfg.syntheticImages);
    throw DataError("data source '" + spec + "' is not supported by this build: use --data synthetic");
}

}  // namespace streetgan
