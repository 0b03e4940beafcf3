// On-disk cache of real-image features and their FID statistics, so a data set is pushed through
// the feature network once per (data set, image size, sample count, feature model).
//
// Key: the data source's describe() line plus what it leaves out (the synthetic set's seed, the
// crop factor of photos), the image size, the number of real images, the feature model file's
// SHA-256 and the image selection/preprocessing version. The file name is the SHA-256 of the key's
// canonical JSON; the key is stored inside too and compared on load.
// Location: the directory given, else $STREETGAN_FID_CACHE, else $XDG_CACHE_HOME/streetgan/fid,
// else ~/.cache/streetgan/fid (defaultDir()); created on first store.
// File: "SGFEAT01", u64 little-endian header length, header JSON {key, n, d, crc32c}, then
// float32 features (n, d), float64 mu (d), float64 sigma (d, d) in the machine's byte order
// (little-endian on every platform LibTorch supports), CRC-32C over those bytes. For 2,048-wide
// features that is 8 KB per real image plus 32 MB for sigma. Written with AtomicFile (temp,
// fsync, rename): readers never see a half-written file. A file that is truncated, fails its
// CRC-32C, or does not parse is reported through `warn` and treated as a miss (the caller then
// recomputes and overwrites it); load never throws for a bad cache file.
//
// Thread contract: stateless apart from the files; concurrent processes may store the same key
// (the last rename wins, both files are complete).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "ml/eval/FrechetDistance.h"

namespace streetgan {

struct RealFeatures {
    at::Tensor features;      ///< float32 (N, D) on the CPU
    FeatureStatistics stats;  ///< of `features`
};

class RealFeatureCache {
public:
    /// `dir` empty: defaultDir().
    explicit RealFeatureCache(std::string dir = {});

    /// The key object (canonical field order: nlohmann::json sorts object keys).
    static nlohmann::json key(const std::string& source, int64_t imageSize, int64_t count, const std::string& modelSha256);
    /// $STREETGAN_FID_CACHE, $XDG_CACHE_HOME/streetgan/fid or $HOME/.cache/streetgan/fid.
    static std::string defaultDir();

    /// The cache file a key maps to.
    std::string pathFor(const nlohmann::json& key) const;
    /// The cached entry, or nullopt when absent or unusable (a reason goes to `warn` unless the
    /// file simply does not exist).
    std::optional<RealFeatures> load(const nlohmann::json& key, const std::function<void(const std::string&)>& warn = {}) const;
    /// Writes the entry atomically; creates the directory. Throws IoError naming the path.
    void store(const nlohmann::json& key, const RealFeatures& entry) const;

    const std::string& dir() const { return dir_; }

private:
    std::string dir_;
};

}  // namespace streetgan
