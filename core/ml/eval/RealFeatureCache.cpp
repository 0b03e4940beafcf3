#include "ml/eval/RealFeatureCache.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include <ATen/ATen.h>

#include "base/util/CacheFile.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"

namespace streetgan {
namespace {

constexpr char kMagic[] = "SGFEAT01";
// Bumped whenever the image selection or preprocessing below the key changes.
constexpr int kVersion = 1;

std::string envOr(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
}

}  // namespace

RealFeatureCache::RealFeatureCache(std::string dir) : dir_(dir.empty() ? defaultDir() : std::move(dir)) {}

nlohmann::json RealFeatureCache::key(const std::string& source, int64_t imageSize, int64_t count, const std::string& modelSha256) {
    return {{"version", kVersion},
            {"source", source},
            {"image_size", imageSize},
            {"count", count},
            {"features_sha256", modelSha256},
            {"selection", "evenly spaced indices, 8-bit RGB, [0,255] float NCHW"}};
}

std::string RealFeatureCache::defaultDir() {
    if (auto d = envOr("STREETGAN_FID_CACHE"); !d.empty()) return d;
    return Paths::cacheDir("fid");
}

std::string RealFeatureCache::pathFor(const nlohmann::json& key) const { return dir_ + "/real_" + ContentHash::sha256(key.dump()).substr(0, 32) + ".sgfeat"; }

std::optional<RealFeatures> RealFeatureCache::load(const nlohmann::json& key, const std::function<void(const std::string&)>& warn) const {
    const std::string path = pathFor(key);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    auto bad = [&](const std::string& why) -> std::optional<RealFeatures> {
        if (warn) warn("feature cache file '" + path + "' is unusable (" + why + "): recomputing it");
        return std::nullopt;
    };
    try {
        const CacheFile::Contents file = CacheFile::read(path, kMagic, "StreetGAN feature cache");
        const nlohmann::json& header = file.header;
        if (header.at("key") != key) return bad("it belongs to another data set or feature model");
        const int64_t n = header.at("n").get<int64_t>(), d = header.at("d").get<int64_t>();
        if (n < 2 || d < 1 || n > (int64_t{1} << 32) || d > (int64_t{1} << 20)) return bad("implausible shape");
        const char* p = file.payload(static_cast<size_t>(n * d) * 4 + static_cast<size_t>(d) * 8 + static_cast<size_t>(d * d) * 8);
        RealFeatures out;
        out.features = at::empty({n, d}, at::TensorOptions().dtype(at::kFloat));
        std::memcpy(out.features.data_ptr<float>(), p, static_cast<size_t>(n * d) * 4);
        p += static_cast<size_t>(n * d) * 4;
        out.stats.mu = at::empty({d}, at::TensorOptions().dtype(at::kDouble));
        std::memcpy(out.stats.mu.data_ptr<double>(), p, static_cast<size_t>(d) * 8);
        p += static_cast<size_t>(d) * 8;
        out.stats.sigma = at::empty({d, d}, at::TensorOptions().dtype(at::kDouble));
        std::memcpy(out.stats.sigma.data_ptr<double>(), p, static_cast<size_t>(d * d) * 8);
        out.stats.count = n;
        return out;
    } catch (const Error& e) {
        return bad(e.what());
    } catch (const nlohmann::json::exception& e) {
        return bad(std::string("bad header: ") + e.what());
    }
}

void RealFeatureCache::store(const nlohmann::json& key, const RealFeatures& entry) const {
    const at::Tensor f = entry.features.to(at::kCPU, at::kFloat).contiguous();
    const at::Tensor mu = entry.stats.mu.to(at::kCPU, at::kDouble).contiguous();
    const at::Tensor sigma = entry.stats.sigma.to(at::kCPU, at::kDouble).contiguous();
    const int64_t n = f.size(0), d = f.size(1);
    CacheFile::write(pathFor(key), kMagic, {{"key", key}, {"n", n}, {"d", d}},
                     {{reinterpret_cast<const char*>(f.data_ptr<float>()), static_cast<size_t>(n * d) * 4},
                      {reinterpret_cast<const char*>(mu.data_ptr<double>()), static_cast<size_t>(d) * 8},
                      {reinterpret_cast<const char*>(sigma.data_ptr<double>()), static_cast<size_t>(d * d) * 8}},
                     "set STREETGAN_FID_CACHE or --cache-dir");
}

}  // namespace streetgan
