// Internal to DatasetIndex: the selection steps of an index, in the order DatasetIndex.h gives
// them: the city include/exclude lists, the deterministic order, the train/validation split by
// key hash, the per-sequence cap on training images, then the split the options ask for.
// Thread contract: stateless; select() is a pure function of its arguments.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/dataset/DatasetIndex.h"
#include "base/dataset/ImageEntry.h"

namespace streetgan {

class DatasetSelection {
public:
    struct Result {
        std::vector<ImageEntry> entries;         ///< sorted by (city, sequence, frame, key, path)
        std::map<std::string, int64_t> dropped;  ///< by step, every step present
        std::vector<std::string> unmatched;      ///< include-list names that matched no city
        int64_t train = 0;                       ///< after the city filter and the cap
        int64_t validation = 0;
    };

    /// Selects from `all` (every usable image found; `foundCities` counts them per city).
    static Result select(std::vector<ImageEntry> all, const std::map<std::string, int64_t>& foundCities, const IndexOptions& options);
};

}  // namespace streetgan
