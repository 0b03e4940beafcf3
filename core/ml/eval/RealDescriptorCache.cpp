#include "ml/eval/RealDescriptorCache.h"

#include <cstring>
#include <filesystem>
#include <utility>

#include <ATen/ATen.h>

#include "base/util/CacheFile.h"
#include "base/util/ContentHash.h"
#include "base/util/Errors.h"
#include "ml/eval/RealFeatureCache.h"

namespace streetgan {
namespace {

constexpr char kMagic[] = "SGSWD001";
// Bumped whenever the image selection or the descriptors' computation below the key changes.
constexpr int kVersion = 1;

}  // namespace

RealDescriptorCache::RealDescriptorCache(std::string dir) : dir_(dir.empty() ? RealFeatureCache::defaultDir() : std::move(dir)) {}

nlohmann::json RealDescriptorCache::key(const std::string& source, int64_t imageSize, int64_t count, const SwdParams& params) {
    return {{"version", kVersion},     {"source", source},
            {"image_size", imageSize}, {"count", count},
            {"swd", params.toJson()},  {"selection", "evenly spaced indices, 8-bit RGB, [0,255] float NCHW, Laplacian pyramid, per-channel normalised"}};
}

std::string RealDescriptorCache::pathFor(const nlohmann::json& key) const { return dir_ + "/swd_" + ContentHash::sha256(key.dump()).substr(0, 32) + ".sgswd"; }

std::optional<std::vector<at::Tensor>> RealDescriptorCache::load(const nlohmann::json& key, const std::function<void(const std::string&)>& warn) const {
    const std::string path = pathFor(key);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    auto bad = [&](const std::string& why) -> std::optional<std::vector<at::Tensor>> {
        if (warn) warn("SWD descriptor cache file '" + path + "' is unusable (" + why + "): recomputing it");
        return std::nullopt;
    };
    try {
        const CacheFile::Contents file = CacheFile::read(path, kMagic, "StreetGAN SWD descriptor cache");
        const nlohmann::json& header = file.header;
        if (header.at("key") != key) return bad("it belongs to another data set or SWD setting");
        const int64_t levels = header.at("levels").get<int64_t>(), m = header.at("m").get<int64_t>(), d = header.at("d").get<int64_t>();
        if (levels < 1 || levels > 16 || m < 1 || d < 1 || m > (int64_t{1} << 32) || d > (int64_t{1} << 16)) return bad("implausible shape");
        const size_t perLevel = static_cast<size_t>(m * d) * 4;
        const char* p = file.payload(perLevel * static_cast<size_t>(levels));
        std::vector<at::Tensor> out;
        for (int64_t l = 0; l < levels; ++l) {
            at::Tensor t = at::empty({m, d}, at::TensorOptions().dtype(at::kFloat));
            std::memcpy(t.data_ptr<float>(), p + static_cast<size_t>(l) * perLevel, perLevel);
            out.push_back(std::move(t));
        }
        return out;
    } catch (const Error& e) {
        return bad(e.what());
    } catch (const nlohmann::json::exception& e) {
        return bad(std::string("bad header: ") + e.what());
    }
}

void RealDescriptorCache::store(const nlohmann::json& key, const std::vector<at::Tensor>& levels) const {
    if (levels.empty()) throw DataError("SWD descriptor cache: nothing to store");
    std::vector<at::Tensor> cpu;
    for (const auto& l : levels) cpu.push_back(l.to(at::kCPU, at::kFloat).contiguous());
    const int64_t m = cpu.front().size(0), d = cpu.front().size(1);
    std::vector<CacheFile::Part> parts;
    for (const auto& t : cpu) {
        if (t.dim() != 2 || t.size(0) != m || t.size(1) != d) throw DataError("SWD descriptor cache: the levels must all be (m, d)");
        parts.push_back({reinterpret_cast<const char*>(t.data_ptr<float>()), static_cast<size_t>(m * d) * 4});
    }
    CacheFile::write(pathFor(key), kMagic, {{"key", key}, {"levels", cpu.size()}, {"m", m}, {"d", d}}, parts, "set STREETGAN_FID_CACHE or --cache-dir");
}

}  // namespace streetgan
