#include "base/util/BuildFeatures.h"

#include "base/util/Errors.h"

namespace streetgan {

void BuildFeatures::missing(const std::string& what, Feature feature) {
    switch (feature) {
        case Feature::Ssh:
            throw ConfigError(what +
                              " needs the trainer's SSH client (libssh), which this streetgan-trainer was built without (STREETGAN_WITH_SSH=OFF, as "
                              "in a host build from source): run it from a full install (the Debian package or the portable archive), or from the app");
        case Feature::S3:
            throw ConfigError(what +
                              " needs S3 support (libcurl), which this streetgan-trainer was built without (STREETGAN_WITH_S3=OFF: the host that built "
                              "it had no libcurl.so.4): install libcurl (dnf install libcurl, apt install libcurl4) and set the trainer up again");
        case Feature::Photos:
            break;
    }
    throw ConfigError(
        what +
        " needs photo support (libjpeg-turbo, libpng), which this streetgan-trainer was built without (STREETGAN_WITH_PHOTOS=OFF, "
        "as a host build from the vendored sources): pack the photos on a full build (`streetgan-trainer data pack FOLDER --size PX --out CACHE`) and "
        "train from the cache, or use --data synthetic");
}

std::string BuildFeatures::summary() {
    return std::string(kPhotos ? "photos" : "no-photos") + ", " + (kMp4 ? "mp4" : "no-mp4") + ", " + (kSsh ? "ssh" : "no-ssh") + ", " + (kS3 ? "s3" : "no-s3");
}

}  // namespace streetgan
