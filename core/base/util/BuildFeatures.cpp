#include "base/util/BuildFeatures.h"

#include "base/util/Errors.h"

namespace streetgan {

void BuildFeatures::missing(const std::string& what, Feature /*feature: Photos, the only one*/) {
    throw ConfigError(what +
                      " needs photo support (OpenCV, libarchive), which this streetgan-trainer was built without (STREETGAN_WITH_PHOTOS=OFF, "
                      "as in the GPU bundle): pack the photos on a full build (`streetgan-trainer data pack FOLDER --size PX --out CACHE`) and "
                      "train from the cache, or use --data synthetic");
}

std::string BuildFeatures::summary() { return std::string(kPhotos ? "photos" : "no-photos") + ", " + (kMp4 ? "mp4" : "no-mp4"); }

}  // namespace streetgan
