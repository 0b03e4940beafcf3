#include "base/s3/S3ObjectCache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/util/Errors.h"
#include "base/util/Fnv1a.h"
#include "base/util/Paths.h"

namespace streetgan::s3 {

namespace {

constexpr const char* kMagic = "SGS3OBJ1";

bool writeAll(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

std::string S3ObjectCache::defaultDir() { return Paths::cacheDir("s3"); }

S3ObjectCache::S3ObjectCache(std::string dir, uint64_t limitBytes) : dir_(std::move(dir)), objects_(dir_ + "/objects"), limit_(limitBytes) {
    std::error_code ec;
    std::filesystem::create_directories(objects_, ec);
    if (ec) throw IoError("cannot create the S3 cache folder '" + objects_ + "': " + ec.message() + ": give a writable --s3-cache folder");
    // Seed the LRU order from the files' mtimes (a hit sets the mtime): oldest first.
    std::vector<std::pair<std::filesystem::file_time_type, std::pair<std::string, uint64_t>>> found;
    for (const auto& f : std::filesystem::directory_iterator(objects_, ec)) {
        const std::string name = f.path().filename().string();
        std::error_code e2;
        if (name.find(".tmp.") != std::string::npos) {  // a write killed mid-way
            std::filesystem::remove(f.path(), e2);
            continue;
        }
        if (f.path().extension() != ".obj" || !f.is_regular_file(e2)) continue;
        const auto size = f.file_size(e2);
        const auto time = f.last_write_time(e2);
        if (!e2) found.push_back({time, {name, size}});
    }
    std::sort(found.begin(), found.end());
    std::lock_guard lock(mutex_);
    for (const auto& [time, entry] : found) {
        Slot s{entry.second, nextTick_++};
        lruOrder_[s.tick] = entry.first;
        slots_[entry.first] = s;
        total_ += s.size;
    }
    evictLocked(limit_);
}

std::string S3ObjectCache::fileFor(const std::string& id) const { return Fnv1a::hex(id) + ".obj"; }

void S3ObjectCache::touch(const std::string& name, Slot& slot) {
    lruOrder_.erase(slot.tick);
    slot.tick = nextTick_++;
    lruOrder_[slot.tick] = name;
}

void S3ObjectCache::evictLocked(uint64_t keepBelow) {
    while (total_ > keepBelow && !lruOrder_.empty()) {
        const auto oldest = lruOrder_.begin();
        const std::string name = oldest->second;
        lruOrder_.erase(oldest);
        const auto it = slots_.find(name);
        total_ -= it->second.size;
        slots_.erase(it);
        ::unlink((objects_ + "/" + name).c_str());
        ++evictions_;
    }
}

bool S3ObjectCache::contains(const std::string& id) const {
    std::lock_guard lock(mutex_);
    return slots_.count(fileFor(id)) > 0;
}

std::optional<std::string> S3ObjectCache::get(const std::string& id) {
    const std::string name = fileFor(id);
    {
        std::lock_guard lock(mutex_);
        const auto it = slots_.find(name);
        if (it == slots_.end()) return std::nullopt;
        touch(name, it->second);
    }
    const std::string path = objects_ + "/" + name;
    std::ifstream in(path, std::ios::binary);
    std::string magic;
    size_t idLength = 0, bodyLength = 0;
    std::optional<std::string> out;
    if (in >> magic >> idLength >> bodyLength && magic == kMagic && in.get() == '\n' && idLength == id.size()) {
        std::string storedId(idLength, '\0'), body(bodyLength, '\0');
        if (in.read(storedId.data(), static_cast<std::streamsize>(idLength)) && storedId == id &&
            in.read(body.data(), static_cast<std::streamsize>(bodyLength)) && in.peek() == std::char_traits<char>::eof())
            out = std::move(body);
    }
    if (!out) {  // gone (another process evicted it), torn, or another id's: forget it
        std::lock_guard lock(mutex_);
        const auto it = slots_.find(name);
        if (it != slots_.end()) {
            lruOrder_.erase(it->second.tick);
            total_ -= it->second.size;
            slots_.erase(it);
        }
        return std::nullopt;
    }
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // the LRU order for the next run
    return out;
}

void S3ObjectCache::put(const std::string& id, const std::string& bytes) {
    const std::string header = std::string(kMagic) + " " + std::to_string(id.size()) + " " + std::to_string(bytes.size()) + "\n";
    const uint64_t size = header.size() + id.size() + bytes.size();
    if (size > limit_) return;
    const std::string name = fileFor(id);
    const std::string path = objects_ + "/" + name;
    static std::atomic<uint64_t> counter{0};
    const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const bool ok = writeAll(fd, header.data(), header.size()) && writeAll(fd, id.data(), id.size()) && writeAll(fd, bytes.data(), bytes.size());
    const bool closed = ::close(fd) == 0;
    if (!ok || !closed || ::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return;
    }
    std::lock_guard lock(mutex_);
    auto it = slots_.find(name);
    if (it != slots_.end()) {
        total_ -= it->second.size;
        it->second.size = size;
    } else {
        it = slots_.emplace(name, Slot{size, 0}).first;
    }
    total_ += size;
    touch(name, it->second);
    // The new entry is the most recent: it survives unless it alone is above the limit.
    evictLocked(limit_);
}

uint64_t S3ObjectCache::bytes() const {
    std::lock_guard lock(mutex_);
    return total_;
}

size_t S3ObjectCache::count() const {
    std::lock_guard lock(mutex_);
    return slots_.size();
}

int64_t S3ObjectCache::evictions() const {
    std::lock_guard lock(mutex_);
    return evictions_;
}

}  // namespace streetgan::s3
