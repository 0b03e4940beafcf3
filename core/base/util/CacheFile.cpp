#include "base/util/CacheFile.h"

#include <filesystem>

#include "base/util/AtomicFile.h"
#include "base/util/Crc32c.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

constexpr size_t kMagicLen = 8;
constexpr size_t kLengthLen = 8;

uint32_t crcOf(const std::vector<CacheFile::Part>& parts) {
    uint32_t crc = 0;
    for (const auto& p : parts) crc = Crc32c::extend(crc, p.data, p.size);
    return crc;
}

}  // namespace

const char* CacheFile::Contents::payload(size_t expected) const {
    const size_t size = bytes.size() - payloadOffset;
    if (size != expected) throw DataError("payload is " + std::to_string(size) + " bytes, expected " + std::to_string(expected));
    const char* p = bytes.data() + payloadOffset;
    uint32_t crc = 0;
    try {
        crc = header.at("crc32c").get<uint32_t>();
    } catch (const nlohmann::json::exception& e) {
        throw DataError(std::string("bad header: ") + e.what());
    }
    if (Crc32c::compute(p, size) != crc) throw DataError("checksum mismatch");
    return p;
}

void CacheFile::write(const std::string& path, const std::string& magic, nlohmann::json header, const std::vector<Part>& parts, const std::string& folderHint) {
    if (magic.size() != kMagicLen) throw ConfigError("cache file magic must be 8 characters: '" + magic + "'");
    header["crc32c"] = crcOf(parts);
    const std::string h = header.dump();
    size_t payload = 0;
    for (const auto& p : parts) payload += p.size;
    std::string out = magic;
    out.reserve(kMagicLen + kLengthLen + h.size() + payload);
    for (size_t i = 0; i < kLengthLen; ++i) out.push_back(static_cast<char>((uint64_t{h.size()} >> (8 * i)) & 0xff));
    out += h;
    for (const auto& p : parts) out.append(p.data, p.size);
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (!folder.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(folder, ec);
        if (ec) throw IoError("cannot create the cache folder '" + folder.string() + "': " + ec.message() + " (" + folderHint + ")");
    }
    AtomicFile::write(path, out);
}

CacheFile::Contents CacheFile::read(const std::string& path, const std::string& magic, const std::string& what) {
    Contents c;
    c.bytes = AtomicFile::read(path);
    const std::string& b = c.bytes;
    if (b.size() < kMagicLen + kLengthLen || b.compare(0, kMagicLen, magic) != 0) throw DataError("not a " + what);
    uint64_t headerLen = 0;
    for (size_t i = 0; i < kLengthLen; ++i) headerLen |= uint64_t{static_cast<uint8_t>(b[kMagicLen + i])} << (8 * i);
    if (headerLen > b.size() - kMagicLen - kLengthLen) throw DataError("truncated header");
    try {
        c.header = nlohmann::json::parse(b.substr(kMagicLen + kLengthLen, headerLen));
    } catch (const nlohmann::json::exception& e) {
        throw DataError(std::string("bad header: ") + e.what());
    }
    c.payloadOffset = kMagicLen + kLengthLen + static_cast<size_t>(headerLen);
    return c;
}

}  // namespace streetgan
