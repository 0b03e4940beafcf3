#include "base/util/BuildFeatures.h"

#include "base/util/Errors.h"

namespace streetgan {

void BuildFeatures::missing(const std::string& what, Feature feature) {
    if (feature == Feature::Photos)
        throw ConfigError(what +
                          " needs photo support (OpenCV, libarchive), which this streetgan-trainer was built without (STREETGAN_WITH_PHOTOS=OFF, "
                          "as in the GPU bundle): pack the photos on a full build (`streetgan-trainer data pack FOLDER --size PX --out CACHE`) and "
                          "train from the cache, or use --data synthetic");
    throw ConfigError(what +
                      " needs MP4 support (FFmpeg), which this streetgan-trainer was built without (STREETGAN_WITH_MP4=OFF, as in the GPU "
                      "bundle): write a GIF or a PNG sequence folder instead, or render on a full build");
}

std::string BuildFeatures::summary() { return std::string(kPhotos ? "photos" : "no-photos") + ", " + (kMp4 ? "mp4" : "no-mp4"); }

}  // namespace streetgan
