#include "ml/eval/RealDescriptorCache.h"

#include <cstring>
#include <filesystem>
#include <utility>

#include <ATen/ATen.h>

#include "base/util/AtomicFile.h"
#include "base/util/ContentHash.h"
#include "base/util/Crc32c.h"
#include "base/util/Errors.h"
#include "ml/eval/RealFeatureCache.h"

namespace streetgan {
namespace {

constexpr char kMagic[] = "SGSWD001";
constexpr size_t kMagicLen = 8;
// Bumped whenever the image selection or the descriptors' computation below the key changes.
constexpr int kVersion = 1;

void putU64(std::string& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t getU64(const std::string& in, size_t at) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<uint8_t>(in[at + static_cast<size_t>(i)])} << (8 * i);
    return v;
}

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
    std::string bytes;
    try {
        bytes = AtomicFile::read(path);
    } catch (const Error& e) {
        return bad(e.what());
    }
    if (bytes.size() < kMagicLen + 8 || bytes.compare(0, kMagicLen, kMagic) != 0) return bad("not a StreetGAN SWD descriptor cache");
    const uint64_t headerLen = getU64(bytes, kMagicLen);
    if (headerLen > bytes.size() - kMagicLen - 8) return bad("truncated header");
    try {
        const nlohmann::json header = nlohmann::json::parse(bytes.substr(kMagicLen + 8, headerLen));
        if (header.at("key") != key) return bad("it belongs to another data set or SWD setting");
        const int64_t levels = header.at("levels").get<int64_t>(), m = header.at("m").get<int64_t>(), d = header.at("d").get<int64_t>();
        const uint32_t crc = header.at("crc32c").get<uint32_t>();
        if (levels < 1 || levels > 16 || m < 1 || d < 1 || m > (int64_t{1} << 32) || d > (int64_t{1} << 16)) return bad("implausible shape");
        const size_t offset = kMagicLen + 8 + headerLen;
        const size_t perLevel = static_cast<size_t>(m * d) * 4;
        const size_t want = perLevel * static_cast<size_t>(levels);
        if (bytes.size() - offset != want) return bad("payload is " + std::to_string(bytes.size() - offset) + " bytes, expected " + std::to_string(want));
        if (Crc32c::compute(bytes.data() + offset, want) != crc) return bad("checksum mismatch");
        std::vector<at::Tensor> out;
        for (int64_t l = 0; l < levels; ++l) {
            at::Tensor t = at::empty({m, d}, at::TensorOptions().dtype(at::kFloat));
            std::memcpy(t.data_ptr<float>(), bytes.data() + offset + static_cast<size_t>(l) * perLevel, perLevel);
            out.push_back(std::move(t));
        }
        return out;
    } catch (const nlohmann::json::exception& e) {
        return bad(std::string("bad header: ") + e.what());
    }
}

void RealDescriptorCache::store(const nlohmann::json& key, const std::vector<at::Tensor>& levels) const {
    if (levels.empty()) throw DataError("SWD descriptor cache: nothing to store");
    std::vector<at::Tensor> cpu;
    for (const auto& l : levels) cpu.push_back(l.to(at::kCPU, at::kFloat).contiguous());
    const int64_t m = cpu.front().size(0), d = cpu.front().size(1);
    uint32_t crc = 0;
    for (const auto& t : cpu) {
        if (t.dim() != 2 || t.size(0) != m || t.size(1) != d) throw DataError("SWD descriptor cache: the levels must all be (m, d)");
        crc = Crc32c::extend(crc, t.data_ptr<float>(), static_cast<size_t>(m * d) * 4);
    }
    const std::string h = nlohmann::json({{"key", key}, {"levels", cpu.size()}, {"m", m}, {"d", d}, {"crc32c", crc}}).dump();
    std::string out(kMagic, kMagicLen);
    out.reserve(kMagicLen + 8 + h.size() + cpu.size() * static_cast<size_t>(m * d) * 4);
    putU64(out, h.size());
    out += h;
    for (const auto& t : cpu) out.append(reinterpret_cast<const char*>(t.data_ptr<float>()), static_cast<size_t>(m * d) * 4);
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw IoError("cannot create the metric cache folder '" + dir_ + "': " + ec.message() + " (set STREETGAN_FID_CACHE or --cache-dir)");
    AtomicFile::write(pathFor(key), out);
}

}  // namespace streetgan
