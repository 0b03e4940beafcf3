// On-disk cache of the real images' SWD descriptors (SlicedWasserstein), so a data set's images are
// loaded and cut into neighbourhoods once per (data set, image size, image count, SWD parameters),
// beside the real-feature cache of FID (RealFeatureCache: the same folder and the same keying).
//
// Key: the data source's identity (RealImageSource::identity: describe() plus the synthetic seed or
// crop factor), the image size, the number of real images, every SwdParams member and the
// selection/preprocessing version. The file name is "swd_" + the SHA-256 of the key's canonical
// JSON; the key is stored inside too and compared on load.
// File: "SGSWD001", u64 little-endian header length, header JSON {key, levels, m, d, crc32c}, then
// per level float32 (m, d) finalised descriptors (normalised per channel), CRC-32C over them. At
// 128 neighbourhoods of 147 values an image costs 75 KB per level (a 64 px set of 512 images:
// 3 levels, 113 MB). Written with AtomicFile; a truncated, corrupt or foreign file is reported
// through `warn` and treated as a miss; load never throws for a bad cache file.
//
// Thread contract: stateless apart from the files; concurrent processes may store the same key
// (the last rename wins, both files are complete).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "ml/eval/SlicedWasserstein.h"

namespace streetgan {

class RealDescriptorCache {
public:
    /// `dir` empty: RealFeatureCache::defaultDir().
    explicit RealDescriptorCache(std::string dir = {});

    static nlohmann::json key(const std::string& source, int64_t imageSize, int64_t count, const SwdParams& params);
    std::string pathFor(const nlohmann::json& key) const;
    /// The cached levels (float32 (m, d) each, on the CPU), or nullopt when absent or unusable.
    std::optional<std::vector<at::Tensor>> load(const nlohmann::json& key, const std::function<void(const std::string&)>& warn = {}) const;
    /// Writes the levels atomically (all of one shape (m, d)); creates the folder. Throws IoError.
    void store(const nlohmann::json& key, const std::vector<at::Tensor>& levels) const;

    const std::string& dir() const { return dir_; }

private:
    std::string dir_;
};

}  // namespace streetgan
