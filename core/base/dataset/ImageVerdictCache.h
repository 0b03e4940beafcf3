// The verdict of every image file of a data source ("ok", or why it is unusable: "truncated",
// "not-an-image", ...), kept on disk with the source so that its images are decoded to check
// them once: a second `data stats` decodes nothing, and a training run never decodes a file
// already known to be bad (PhotoListing drops such files from the listing, counted by reason).
//
// Key: a verdict holds for one path at one size and modification time (ns); a file whose size
// or mtime changed has no verdict and is checked again. Archive entries have no mtime of their
// own: the cache of an archive is keyed by the archive's size and mtime as a whole (a rewritten
// archive starts a fresh cache) and an entry by its name and size. The whole file is also keyed
// by a `checker` text naming the checks that made the verdicts (PhotoListing::kChecker): new
// checks ignore old verdicts instead of trusting them.
//
// Where: like the archive index (ArchiveReader's .sgindex), next to the data first, else in the
// user's cache folder:
//   folder:  <root>/.sgverdicts, else Paths::cacheDir("verdicts")/<FNV-1a of the root>.sgverdicts
//   archive: <archive>.sgverdicts, else Paths::cacheDir("verdicts")/<FNV-1a of the path>.sgverdicts
// (the folder's file is hidden and not image-named, so the lister ignores it). Paths inside are
// relative to the root (normalised, as ImageEntry::path), so a moved folder keeps its verdicts.
//
// Format, versioned by its magic: "SGVERDC1", the key, the record count, then per record the path,
// size, mtime and verdict (native little-endian u64s, u64-length-prefixed strings). A file with
// another magic (an older or newer version), another key, or any inconsistency (short, trailing
// bytes, counts out of range) is ignored whole and rewritten on the next save: never misread.
// Writes are atomic (AtomicFile); two processes saving at once lose at most the verdicts of one,
// which are then checked again. Failing to write is not an error (the checks just run again).
//
// Thread contract: load() and lookup() are reentrant; record(), pending() and save() may be called
// from any thread at once (one mutex; save() does its I/O under it).
//
// Header-only (inline definitions below the class): it adds no file to the library's source list.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"

namespace streetgan {

class ImageVerdictCache {
public:
    /// The verdict a file had at a size and mtime.
    struct Verdict {
        uint64_t size = 0;
        int64_t mtimeNs = 0;
        std::string verdict;  ///< kOk or a reason name
    };
    using Map = std::unordered_map<std::string, Verdict>;  ///< normalised relative path -> verdict
    static constexpr const char* kOk = "ok";
    static constexpr char kMagic[9] = "SGVERDC1";

    /// The cache of the folder `absRoot` (absolute, normalised) for verdicts made by `checker`.
    static std::shared_ptr<ImageVerdictCache> forFolder(const std::string& absRoot, const std::string& checker);
    /// The cache of the archive file `path`, keyed by its size and mtime too (0 when it cannot be
    /// read: such a cache never matches a readable archive).
    static std::shared_ptr<ImageVerdictCache> forArchive(const std::string& path, const std::string& checker);

    /// A cache read from the first of `candidates` holding `key`, saved to the first writable one.
    ImageVerdictCache(std::vector<std::string> candidates, std::string key);

    /// The stored verdicts; empty when no candidate holds a valid file with this key.
    Map load() const;
    /// The stored verdict of `path` when it is for this size and mtime, else nullptr.
    static const std::string* lookup(const Map& map, const std::string& path, uint64_t size, int64_t mtimeNs);

    /// Adds or replaces the verdict of `path`, kept in memory until save().
    void record(const std::string& path, uint64_t size, int64_t mtimeNs, const std::string& verdict);
    /// Verdicts recorded since the last successful save.
    int64_t pending() const;
    /// Merges the recorded verdicts into the stored ones and writes the file atomically. With
    /// `live`, stored verdicts of paths not in it (deleted files) are dropped. Returns the file
    /// written, or "" when there was nothing to write or no candidate was writable.
    std::string save(const std::unordered_set<std::string>* live = nullptr);

    /// The file last read or written ("" when none).
    std::string path() const;
    const std::string& key() const { return key_; }

private:
    bool readFile(const std::string& file, Map& out) const;

    std::vector<std::string> candidates_;
    std::string key_;
    mutable std::mutex mutex_;
    Map pending_;
    mutable std::string path_;
};

namespace verdict_cache_detail {

namespace fs = std::filesystem;

inline std::string absolutePath(const std::string& path) {
    std::error_code ec;
    const fs::path abs = fs::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
}

inline std::string fallbackFile(const std::string& absPath) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a, as the archive index's fallback name
    for (unsigned char c : absPath) h = (h ^ c) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return Paths::cacheDir("verdicts") + "/" + hex + ".sgverdicts";
}

inline void putU64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }
inline void putStr(std::string& s, const std::string& x) {
    putU64(s, x.size());
    s += x;
}

struct BlobReader {
    const std::string& s;
    size_t p = 0;
    bool ok = true;
    uint64_t u64() {
        uint64_t v = 0;
        if (!ok || s.size() - p < sizeof v) {
            ok = false;
            return 0;
        }
        std::memcpy(&v, s.data() + p, sizeof v);
        p += sizeof v;
        return v;
    }
    std::string str() {
        const uint64_t n = u64();
        if (!ok || n > s.size() - p) {
            ok = false;
            return {};
        }
        std::string r = s.substr(p, static_cast<size_t>(n));
        p += static_cast<size_t>(n);
        return r;
    }
};

}  // namespace verdict_cache_detail

inline std::shared_ptr<ImageVerdictCache> ImageVerdictCache::forFolder(const std::string& absRoot, const std::string& checker) {
    std::vector<std::string> candidates{absRoot + "/.sgverdicts", verdict_cache_detail::fallbackFile(absRoot)};
    return std::make_shared<ImageVerdictCache>(std::move(candidates), "folder\n" + checker);
}

inline std::shared_ptr<ImageVerdictCache> ImageVerdictCache::forArchive(const std::string& path, const std::string& checker) {
    struct stat st {};
    uint64_t size = 0, mtimeNs = 0;
    if (::stat(path.c_str(), &st) == 0) {
        size = static_cast<uint64_t>(st.st_size);
        mtimeNs = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull + static_cast<uint64_t>(st.st_mtim.tv_nsec);
    }
    std::vector<std::string> candidates{path + ".sgverdicts", verdict_cache_detail::fallbackFile(verdict_cache_detail::absolutePath(path))};
    return std::make_shared<ImageVerdictCache>(std::move(candidates),
                                               "archive\n" + checker + "\n" + std::to_string(size) + "\n" + std::to_string(mtimeNs));
}

inline ImageVerdictCache::ImageVerdictCache(std::vector<std::string> candidates, std::string key) : candidates_(std::move(candidates)), key_(std::move(key)) {}

inline bool ImageVerdictCache::readFile(const std::string& file, Map& out) const {
    std::string blob;
    {
        std::ifstream f(file, std::ios::binary);
        if (!f) return false;
        blob.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
        if (f.bad()) return false;
    }
    const size_t magicSize = sizeof kMagic - 1;
    if (blob.size() < magicSize || std::memcmp(blob.data(), kMagic, magicSize) != 0) return false;
    verdict_cache_detail::BlobReader r{blob, magicSize};
    if (r.str() != key_ || !r.ok) return false;
    const uint64_t n = r.u64();
    if (!r.ok || n > blob.size() / 32) return false;  // a record takes at least 32 bytes
    Map map;
    map.reserve(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n && r.ok; ++i) {
        std::string path = r.str();
        Verdict v;
        v.size = r.u64();
        v.mtimeNs = static_cast<int64_t>(r.u64());
        v.verdict = r.str();
        if (v.verdict.empty()) r.ok = false;
        map[std::move(path)] = std::move(v);
    }
    if (!r.ok || r.p != blob.size()) return false;
    out = std::move(map);
    return true;
}

inline ImageVerdictCache::Map ImageVerdictCache::load() const {
    std::lock_guard<std::mutex> lock(mutex_);
    Map map;
    for (const std::string& file : candidates_)
        if (readFile(file, map)) {
            path_ = file;
            return map;
        }
    return {};
}

inline const std::string* ImageVerdictCache::lookup(const Map& map, const std::string& path, uint64_t size, int64_t mtimeNs) {
    const auto it = map.find(path);
    if (it == map.end() || it->second.size != size || it->second.mtimeNs != mtimeNs) return nullptr;
    return &it->second.verdict;
}

inline void ImageVerdictCache::record(const std::string& path, uint64_t size, int64_t mtimeNs, const std::string& verdict) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_[path] = Verdict{size, mtimeNs, verdict};
}

inline int64_t ImageVerdictCache::pending() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int64_t>(pending_.size());
}

inline std::string ImageVerdictCache::path() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return path_;
}

inline std::string ImageVerdictCache::save(const std::unordered_set<std::string>* live) {
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
    std::string blob(kMagic, sizeof kMagic - 1);
    verdict_cache_detail::putStr(blob, key_);
    verdict_cache_detail::putU64(blob, map.size());
    for (const auto& [path, v] : map) {
        verdict_cache_detail::putStr(blob, path);
        verdict_cache_detail::putU64(blob, v.size);
        verdict_cache_detail::putU64(blob, static_cast<uint64_t>(v.mtimeNs));
        verdict_cache_detail::putStr(blob, v.verdict);
    }
    for (const std::string& file : candidates_) {
        try {
            std::error_code ec;
            std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
            AtomicFile::write(file, blob);
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
