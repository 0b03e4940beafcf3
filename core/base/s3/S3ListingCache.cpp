#include "base/s3/S3ListingCache.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/util/AtomicFile.h"
#include "base/util/Fnv1a.h"

namespace streetgan::s3 {

namespace {

constexpr const char* kMagic = "SGS3LST1";

std::string decode(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::string idOf(const std::string& endpoint, const std::string& bucket, const std::string& prefix) { return endpoint + "|" + bucket + "|" + prefix; }

int64_t nowSeconds() { return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// The cached objects, or false when the file is absent, too old, another id's or damaged.
bool readCache(const std::string& path, const std::string& id, double maxAgeHours, std::vector<S3Object>& out) {
    std::ifstream in(path, std::ios::binary);
    std::string magic;
    int64_t made = 0;
    size_t count = 0, idLength = 0;
    if (!(in >> magic >> made >> count >> idLength) || magic != kMagic || in.get() != '\n') return false;
    if (static_cast<double>(nowSeconds() - made) > maxAgeHours * 3600.0 || made > nowSeconds() + 60) return false;
    std::string storedId(idLength, '\0');
    if (!in.read(storedId.data(), static_cast<std::streamsize>(idLength)) || storedId != id || in.get() != '\n') return false;
    std::vector<S3Object> objects;
    objects.reserve(count);
    std::string line;
    try {
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            S3Object o;
            std::string etag, key;
            if (!(fields >> o.size >> etag >> key)) return false;
            o.etag = etag == "-" ? "" : decode(etag);
            o.key = decode(key);
            objects.push_back(std::move(o));
        }
    } catch (const std::exception&) {  // a bad %-escape
        return false;
    }
    if (objects.size() != count) return false;
    out = std::move(objects);
    return true;
}

}  // namespace

std::string S3ListingCache::fileFor(const std::string& cacheDir, const std::string& endpoint, const std::string& bucket, const std::string& prefix) {
    return cacheDir + "/listings/" + Fnv1a::hex(idOf(endpoint, bucket, prefix)) + ".sglist";
}

std::vector<S3Object> S3ListingCache::list(S3Client& client, const std::string& endpoint, const std::string& prefix, const std::string& cacheDir,
                                           double maxAgeHours) {
    const std::string id = idOf(endpoint, client.bucket(), prefix);
    const std::string path = fileFor(cacheDir, endpoint, client.bucket(), prefix);
    std::vector<S3Object> objects;
    if (maxAgeHours > 0 && readCache(path, id, maxAgeHours, objects)) return objects;
    objects = client.list(prefix);
    std::ostringstream out;
    out << kMagic << " " << nowSeconds() << " " << objects.size() << " " << id.size() << "\n" << id << "\n";
    for (const S3Object& o : objects)
        out << o.size << " " << (o.etag.empty() ? "-" : S3Client::uriEncode(o.etag, false)) << " " << S3Client::uriEncode(o.key, true) << "\n";
    try {
        std::error_code ec;
        std::filesystem::create_directories(cacheDir + "/listings", ec);
        AtomicFile::write(path, out.str());
    } catch (const std::exception&) {
        // not cached: the next run lists again
    }
    return objects;
}

}  // namespace streetgan::s3
