// The optional features a build may leave out (CMake's STREETGAN_WITH_PHOTOS, _MP4, _SSH and _S3;
// the `cuda` preset and the GPU bundle leave out photos and MP4, a vendored host build of the lean
// trainer also SSH, and S3 where the host has no libcurl) and the one error a user gets for them.
// STREETGAN_WITH_* are defined 0 or 1 only for the files named to streetgan_build_features() in
// CMake: a file that includes this header must be named there (the #error says so), and a file that
// tests STREETGAN_WITH_* must include this header (tests/layering checks it).
//
// Thread contract: constants and a pure function; any thread.
#pragma once

#include <string>

#ifndef STREETGAN_WITH_PHOTOS
#error "STREETGAN_WITH_PHOTOS is not defined: name this file in its CMakeLists.txt's streetgan_build_features()"
#endif
#ifndef STREETGAN_WITH_MP4
#error "STREETGAN_WITH_MP4 is not defined: name this file in its CMakeLists.txt's streetgan_build_features()"
#endif
#ifndef STREETGAN_WITH_SSH
#error "STREETGAN_WITH_SSH is not defined: name this file in its CMakeLists.txt's streetgan_build_features()"
#endif
#ifndef STREETGAN_WITH_S3
#error "STREETGAN_WITH_S3 is not defined: name this file in its CMakeLists.txt's streetgan_build_features()"
#endif

namespace streetgan {

class BuildFeatures {
public:
    /// The features a caller may find missing (MP4 is an export format: ExportFormat::missing says so).
    enum class Feature { Photos, Ssh, S3 };
    /// Photo folders and zip/tar batches: decoding (libjpeg-turbo, libpng), `data pack`.
    static constexpr bool kPhotos = STREETGAN_WITH_PHOTOS != 0;
    /// MP4 export through FFmpeg.
    static constexpr bool kMp4 = STREETGAN_WITH_MP4 != 0;
    /// The trainer's own SSH client (`remote`): libssh.
    static constexpr bool kSsh = STREETGAN_WITH_SSH != 0;
    /// S3 data and checkpoint sync: libcurl.
    static constexpr bool kS3 = STREETGAN_WITH_S3 != 0;

    /// Throws ConfigError: "<what> needs <feature>, which this streetgan-trainer was built without
    /// (<option>=OFF, as in ...): <what to do instead>".
    [[noreturn]] static void missing(const std::string& what, Feature feature);
    /// "photos, mp4, ssh, s3" with "no-" before each left out (`version` prints it).
    static std::string summary();
};

}  // namespace streetgan
