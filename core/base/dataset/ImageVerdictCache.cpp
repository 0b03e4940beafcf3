#include "base/dataset/ImageVerdictCache.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/util/AtomicFile.h"
#include "base/util/BlobReader.h"
#include "base/util/BlobWriter.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"

namespace streetgan {

namespace {

namespace fs = std::filesystem;

std::string absolutePath(const std::string& path) {
    std::error_code ec;
    const fs::path abs = fs::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
}

std::string fallbackFile(const std::string& absPath) { return Paths::cacheFileFor("verdicts", absPath, ".sgverdicts"); }

}  // namespace

std::shared_ptr<ImageVerdictCache> ImageVerdictCache::forFolder(const std::string& absRoot, const std::string& checker) {
    std::vector<std::string> candidates{absRoot + "/.sgverdicts", fallbackFile(absRoot)};
    return std::make_shared<ImageVerdictCache>(std::move(candidates), "folder\n" + checker);
}

std::shared_ptr<ImageVerdictCache> ImageVerdictCache::forArchive(const std::string& path, const std::string& checker) {
    struct stat st {};
    uint64_t size = 0, mtimeNs = 0;
    if (::stat(path.c_str(), &st) == 0) {
        size = static_cast<uint64_t>(st.st_size);
        mtimeNs = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull + static_cast<uint64_t>(st.st_mtim.tv_nsec);
    }
    std::vector<std::string> candidates{path + ".sgverdicts", fallbackFile(absolutePath(path))};
    return std::make_shared<ImageVerdictCache>(std::move(candidates), "archive\n" + checker + "\n" + std::to_string(size) + "\n" + std::to_string(mtimeNs));
}

ImageVerdictCache::ImageVerdictCache(std::vector<std::string> candidates, std::string key) : candidates_(std::move(candidates)), key_(std::move(key)) {}

bool ImageVerdictCache::readFile(const std::string& file, Map& out) const {
    std::string blob;
    {
        std::ifstream f(file, std::ios::binary);
        if (!f) return false;
        blob.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
        if (f.bad()) return false;
    }
    const size_t magicSize = sizeof kMagic - 1;
    if (blob.size() < magicSize || std::memcmp(blob.data(), kMagic, magicSize) != 0) return false;
    BlobReader r(blob, magicSize);
    if (r.str() != key_ || !r.ok()) return false;
    const uint64_t n = r.u64();
    if (!r.ok() || n > blob.size() / 32) return false;  // a record takes at least 32 bytes
    Map map;
    map.reserve(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n && r.ok(); ++i) {
        std::string path = r.str();
        Verdict v;
        v.size = r.u64();
        v.mtimeNs = static_cast<int64_t>(r.u64());
        v.verdict = r.str();
        if (v.verdict.empty()) r.fail();
        map[std::move(path)] = std::move(v);
    }
    if (!r.ok() || !r.atEnd()) return false;
    out = std::move(map);
    return true;
}

ImageVerdictCache::Map ImageVerdictCache::load() const {
    std::lock_guard<std::mutex> lock(mutex_);
    Map map;
    for (const std::string& file : candidates_)
        if (readFile(file, map)) {
            path_ = file;
            return map;
        }
    return {};
}

const std::string* ImageVerdictCache::lookup(const Map& map, const std::string& path, uint64_t size, int64_t mtimeNs) {
    const auto it = map.find(path);
    if (it == map.end() || it->second.size != size || it->second.mtimeNs != mtimeNs) return nullptr;
    return &it->second.verdict;
}

void ImageVerdictCache::record(const std::string& path, uint64_t size, int64_t mtimeNs, const std::string& verdict) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_[path] = Verdict{size, mtimeNs, verdict};
}

int64_t ImageVerdictCache::pending() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int64_t>(pending_.size());
}

std::string ImageVerdictCache::path() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return path_;
}

std::string ImageVerdictCache::save(const std::unordered_set<std::string>* live) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending_.empty() && !live) return {};
    Map map;
    for (const std::string& file : candidates_)
        if (readFile(file, map)) break;
    const size_t before = map.size();
    for (auto& [path, v] : pending_) map[path] = v;
    bool pruned = false;
    if (live)
        for (auto it = map.begin(); it != map.end();) {
            if (live->count(it->first) == 0) {
                it = map.erase(it);
                pruned = true;
            } else {
                ++it;
            }
        }
    if (pending_.empty() && !pruned && map.size() == before) return {};
    BlobWriter blob(std::string(kMagic, sizeof kMagic - 1));
    blob.str(key_);
    blob.u64(map.size());
    for (const auto& [path, v] : map) {
        blob.str(path);
        blob.u64(v.size);
        blob.u64(static_cast<uint64_t>(v.mtimeNs));
        blob.str(v.verdict);
    }
    for (const std::string& file : candidates_) {
        try {
            std::error_code ec;
            std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
            AtomicFile::write(file, blob.bytes());
            path_ = file;
            pending_.clear();
            return file;
        } catch (const Error&) {
            // not writable here: try the next place; no cache is not an error
        }
    }
    return {};
}

}  // namespace streetgan
