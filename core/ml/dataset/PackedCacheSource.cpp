#include "ml/dataset/PackedCacheSource.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/s3/S3Dataset.h"
#include "base/util/Crc32c.h"
#include "base/util/Errors.h"
#include "ml/dataset/PackedCacheWriter.h"

namespace streetgan {
namespace {

using nlohmann::json;

struct Shard {
    std::string file;
    int64_t bytes = 0;
    uint32_t crc = 0;
};

struct Parsed {
    AugmentParams params;
    std::vector<PackedCacheSource::Record> records;
    std::vector<Shard> shards;
    std::map<std::string, int64_t> skipped;
    std::string root, fingerprint;
};

std::string repack(const std::string& dir) { return "; delete '" + dir + "' and pack the data again"; }

// The index in `text` (read from `dir`/index.json, named `path` in messages).
Parsed parseIndexText(const std::string& text, const std::string& dir, const std::string& path) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw DataError("packed cache index '" + path + "' is unreadable (" + std::string(e.what()) + ")" + repack(dir));
    }
    Parsed p;
    try {
        if (j.value("format", std::string()) != "streetgan-packed-cache") throw DataError("'" + path + "' is not a StreetGAN packed cache index" + repack(dir));
        const int version = j.value("version", 0);
        if (version != PackedCacheWriter::kVersion)
            throw DataError("packed cache '" + dir + "' has format version " + std::to_string(version) + ", this build reads version " +
                            std::to_string(PackedCacheWriter::kVersion) + repack(dir));
        p.params.size = j.at("size").get<int>();
        const json& pr = j.at("params");
        p.params.maxShift = pr.at("max_shift").get<double>();
        p.params.cropFactor = pr.at("crop_factor").get<double>();
        p.params.noiseStd = pr.at("noise_std").get<double>();
        p.params.flip = pr.at("flip").get<bool>();
        Augmentation::validate(p.params);
        p.root = j.value("root", std::string());
        p.fingerprint = j.value("fingerprint", std::string());
        p.skipped = j.at("skipped").get<std::map<std::string, int64_t>>();
        for (const auto& [k, v] : j.at("index_skipped").get<std::map<std::string, int64_t>>()) p.skipped[k] += v;
        for (const auto& s : j.at("shards"))
            p.shards.push_back({s.at("file").get<std::string>(), s.at("bytes").get<int64_t>(),
                                static_cast<uint32_t>(std::stoul(s.at("crc32c").get<std::string>(), nullptr, 16))});
        const auto& recs = j.at("records");
        p.records.reserve(recs.size());
        for (const auto& r : recs) p.records.push_back(PackedCacheSource::recordFromJson(r));
        if (j.at("images").get<int64_t>() != static_cast<int64_t>(p.records.size()))
            throw DataError("packed cache index '" + path + "' lists " + std::to_string(p.records.size()) + " records but says " +
                            std::to_string(j.at("images").get<int64_t>()) + " images" + repack(dir));
    } catch (const json::exception& e) {
        throw DataError("packed cache index '" + path + "' is malformed (" + std::string(e.what()) + ")" + repack(dir));
    } catch (const ConfigError& e) {
        throw DataError("packed cache index '" + path + "' has bad parameters (" + std::string(e.what()) + ")" + repack(dir));
    } catch (const std::logic_error& e) {  // stoul
        throw DataError("packed cache index '" + path + "' is malformed (" + std::string(e.what()) + ")" + repack(dir));
    }
    if (p.records.empty()) throw DataError("packed cache '" + dir + "' holds no images" + repack(dir));

    // Records must tile the shards exactly, in order: shard by shard, back to back.
    const int S = p.params.size;
    std::vector<int64_t> filled(p.shards.size(), 0);
    for (size_t i = 0; i < p.records.size(); ++i) {
        const auto& r = p.records[i];
        const bool ok = r.shard >= 0 && r.shard < static_cast<int64_t>(p.shards.size()) && r.margin >= 0 && r.cols == S + 2 * r.margin && r.width > 0 &&
                        r.height > 0 && r.reduction >= 1 && r.crop >= 1 && r.offset == filled[static_cast<size_t>(r.shard)];
        if (!ok) throw DataError("packed cache index '" + path + "' is inconsistent at record " + std::to_string(i) + " ('" + r.key + "')" + repack(dir));
        filled[static_cast<size_t>(r.shard)] += static_cast<int64_t>(S) * r.cols * 3;
    }
    for (size_t s = 0; s < p.shards.size(); ++s)
        if (filled[s] != p.shards[s].bytes || p.shards[s].file != PackedCacheWriter::shardName(static_cast<int64_t>(s)))
            throw DataError("packed cache index '" + path + "' is inconsistent for shard '" + p.shards[s].file + "'" + repack(dir));
    return p;
}

Parsed parseIndex(const std::string& dir) {
    const std::string path = dir + "/index.json";
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::ifstream progress(dir + "/progress.json");
        if (progress) throw DataError("packed cache '" + dir + "' is incomplete (packing was interrupted): run the pack again, it resumes where it stopped");
        throw DataError("no packed cache in '" + dir + "' (index.json missing): pack the data set into it first");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parseIndexText(text.str(), dir, path);
}

// The index of the cache in a bucket, read through its fetcher (cached by ETag like any object).
Parsed parseS3Index(const s3::S3Dataset& ds) {
    const std::string& dir = ds.spec();
    if (!ds.find("index.json")) {
        if (ds.find("progress.json"))
            throw DataError("packed cache '" + dir + "' is incomplete (packing was interrupted): finish the pack and upload it again");
        throw DataError("no packed cache in '" + dir + "' (index.json missing): upload a packed cache's folder there");
    }
    return parseIndexText(ds.fetcher().get(ds.request("index.json")), dir, ds.url().uri(ds.url().folderPrefix() + "index.json"));
}

// Throws when a shard object is missing or has the wrong size.
void checkShardObject(const s3::S3Dataset& ds, const Shard& s) {
    const std::string& dir = ds.spec();
    const std::string uri = ds.url().uri(ds.url().folderPrefix() + s.file);
    const s3::S3Object* o = ds.find(s.file);
    if (!o) throw DataError("packed cache shard '" + uri + "' is missing" + repack(dir));
    if (static_cast<int64_t>(o->size) != s.bytes)
        throw DataError("packed cache shard '" + uri + "' is " + (static_cast<int64_t>(o->size) < s.bytes ? "truncated" : "too long") + " (" +
                        std::to_string(o->size) + " of " + std::to_string(s.bytes) + " bytes)" + repack(dir));
}

// Throws when a shard is missing or has the wrong size.
void checkShardFile(const std::string& dir, const Shard& s) {
    struct stat st {};
    const std::string path = dir + "/" + s.file;
    if (::stat(path.c_str(), &st) != 0) throw DataError("packed cache shard '" + path + "' is missing (" + std::strerror(errno) + ")" + repack(dir));
    if (static_cast<int64_t>(st.st_size) != s.bytes)
        throw DataError("packed cache shard '" + path + "' is " + (st.st_size < s.bytes ? "truncated" : "too long") + " (" + std::to_string(st.st_size) +
                        " of " + std::to_string(s.bytes) + " bytes)" + repack(dir));
}

}  // namespace

PackedCacheSource::Record PackedCacheSource::recordFromJson(const nlohmann::json& r) {
    Record rec;
    rec.key = r.at(0).get<std::string>();
    rec.city = r.at(1).get<std::string>();
    rec.sequence = r.at(2).get<std::string>();
    rec.shard = r.at(3).get<int64_t>();
    rec.offset = r.at(4).get<int64_t>();
    rec.cols = r.at(5).get<int>();
    rec.margin = r.at(6).get<int>();
    rec.width = r.at(7).get<int>();
    rec.height = r.at(8).get<int>();
    rec.reduction = r.at(9).get<int>();
    rec.crop = r.at(10).get<int>();
    return rec;
}

PackedCacheSource::PackedCacheSource(const std::string& dir) : dir_(dir) {
    Parsed p = parseIndex(dir);
    params_ = p.params;
    records_ = std::move(p.records);
    skipped_ = std::move(p.skipped);
    root_ = std::move(p.root);
    fingerprint_ = std::move(p.fingerprint);
    std::set<std::string> cities;
    for (const auto& r : records_) cities.insert(r.city);
    cityCount_ = static_cast<int64_t>(cities.size());
    try {
        for (const Shard& s : p.shards) {
            checkShardFile(dir, s);
            const std::string path = dir + "/" + s.file;
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) throw DataError("cannot open packed cache shard '" + path + "': " + std::strerror(errno));
            void* m = ::mmap(nullptr, static_cast<size_t>(s.bytes), PROT_READ, MAP_SHARED, fd, 0);
            const int err = errno;
            ::close(fd);
            if (m == MAP_FAILED) throw DataError("cannot map packed cache shard '" + path + "': " + std::strerror(err));
            ::madvise(m, static_cast<size_t>(s.bytes), MADV_RANDOM);
            shards_.push_back({static_cast<const uint8_t*>(m), static_cast<size_t>(s.bytes)});
        }
    } catch (...) {
        for (const Mapping& m : shards_) ::munmap(const_cast<uint8_t*>(m.data), m.bytes);
        shards_.clear();
        throw;
    }
}

std::shared_ptr<PackedCacheSource> PackedCacheSource::s3(std::shared_ptr<const s3::S3Dataset> ds) {
    const std::string spec = ds->spec();
    Parsed p = parseS3Index(*ds);
    for (const Shard& s : p.shards) checkShardObject(*ds, s);
    std::shared_ptr<PackedCacheSource> cache(new PackedCacheSource());
    cache->dir_ = spec;
    cache->params_ = p.params;
    cache->records_ = std::move(p.records);
    cache->skipped_ = std::move(p.skipped);
    cache->root_ = std::move(p.root);
    cache->fingerprint_ = std::move(p.fingerprint);
    std::set<std::string> cities;
    for (const auto& r : cache->records_) cities.insert(r.city);
    cache->cityCount_ = static_cast<int64_t>(cities.size());
    for (const Shard& s : p.shards) cache->shardFiles_.push_back(s.file);
    cache->s3_ = std::move(ds);
    cache->prefetchWindow_ =
        std::max<int64_t>(int64_t{8} * std::max(1, cache->s3_->options().concurrency), int64_t{2} * cache->s3_->fetcher().maxConcurrency());
    return cache;
}

s3::S3Fetcher::Request PackedCacheSource::bandRequest(const Record& r) const {
    const auto bytes = static_cast<uint64_t>(params_.size) * static_cast<uint64_t>(r.cols) * 3;
    return s3_->request(shardFiles_[static_cast<size_t>(r.shard)], static_cast<uint64_t>(r.offset), bytes);
}

void PackedCacheSource::prefetch(const int64_t* indices, size_t n) const {
    if (!s3_) return;
    std::vector<s3::S3Fetcher::Request> requests;
    requests.reserve(n);
    for (size_t k = 0; k < n; ++k)
        if (indices[k] >= 0 && indices[k] < size()) requests.push_back(bandRequest(records_[static_cast<size_t>(indices[k])]));
    s3_->fetcher().prefetch(requests);
}

void PackedCacheSource::verifyS3(const s3::S3Dataset& bucket) {
    const s3::S3Dataset* ds = &bucket;
    const std::string& spec = ds->spec();
    const Parsed p = parseS3Index(*ds);
    // Every byte from the bucket (never the local object cache), in chunks a few of which are in
    // flight at once.
    constexpr uint64_t kChunk = uint64_t{8} << 20;
    constexpr size_t kAhead = 8;
    for (const Shard& s : p.shards) {
        checkShardObject(*ds, s);
        const std::string uri = ds->url().uri(ds->url().folderPrefix() + s.file);
        std::vector<s3::S3Fetcher::Request> chunks;
        for (uint64_t at = 0; at < static_cast<uint64_t>(s.bytes); at += kChunk) {
            s3::S3Fetcher::Request r = ds->request(s.file, at, std::min<uint64_t>(kChunk, static_cast<uint64_t>(s.bytes) - at));
            r.cacheable = false;
            chunks.push_back(r);
        }
        uint32_t crc = 0;
        int64_t total = 0;
        for (size_t i = 0; i < chunks.size(); ++i) {
            if (i % kAhead == 0)
                ds->fetcher().prefetch(
                    {chunks.begin() + static_cast<std::ptrdiff_t>(i), chunks.begin() + static_cast<std::ptrdiff_t>(std::min(chunks.size(), i + 2 * kAhead))});
            const std::string bytes = ds->fetcher().get(chunks[i]);
            crc = Crc32c::extend(crc, bytes.data(), bytes.size());
            total += static_cast<int64_t>(bytes.size());
        }
        if (total != s.bytes)
            throw DataError("cannot read all of packed cache shard '" + uri + "' (" + std::to_string(total) + " of " + std::to_string(s.bytes) + " bytes)" +
                            repack(spec));
        if (crc != s.crc) throw DataError("packed cache shard '" + uri + "' is corrupt (CRC-32C mismatch: the object changed after packing)" + repack(spec));
    }
}

PackedCacheSource::~PackedCacheSource() {
    for (const Mapping& m : shards_) ::munmap(const_cast<uint8_t*>(m.data), m.bytes);
}

Augmentation::Draw PackedCacheSource::draw(int64_t index, uint64_t seed) const {
    if (index < 0 || index >= size())
        throw DataError("packed cache image " + std::to_string(index) + " is out of range (" + std::to_string(size()) + " images)");
    return Augmentation::draw(params_, records_[static_cast<size_t>(index)].width, seed);
}

void PackedCacheSource::load(int64_t index, int size, uint64_t augmentSeed, uint8_t* rgb) const {
    const int S = params_.size;
    if (size != S)
        throw ConfigError("packed cache '" + dir_ + "' was packed for " + std::to_string(S) + " px images but " + std::to_string(size) +
                          " px were asked for; pack it again at that size");
    const Augmentation::Draw d = draw(index, augmentSeed);
    const Record& r = records_[static_cast<size_t>(index)];
    // As applyU8: the shift in decoded pixels, then scaled like the crop (exact when crop == size).
    const long dxr = std::lround(static_cast<double>(d.shiftSource) / r.reduction);
    long sc = r.crop == S ? dxr : std::lround(static_cast<double>(dxr) * S / r.crop);
    sc = std::clamp<long>(sc, -r.margin, r.margin);
    const int start = r.margin - static_cast<int>(sc);  // band column shown at output column 0
    const size_t rowBytes = static_cast<size_t>(S) * 3;
    std::string fetched;  // the record's band, from the bucket (or the object cache)
    if (s3_) {
        fetched = s3_->fetcher().get(bandRequest(r));
        if (fetched.size() != static_cast<size_t>(S) * static_cast<size_t>(r.cols) * 3)
            throw DataError("packed cache '" + dir_ + "' gave " + std::to_string(fetched.size()) + " bytes for image '" + r.key + "'" + repack(dir_));
    }
    const uint8_t* band = s3_ ? reinterpret_cast<const uint8_t*>(fetched.data()) : shards_[static_cast<size_t>(r.shard)].data + r.offset;
    const uint8_t* base = band + static_cast<size_t>(start) * 3;
    const size_t stride = static_cast<size_t>(r.cols) * 3;
    if (!d.flipped) {
        for (int y = 0; y < S; ++y) std::memcpy(rgb + y * rowBytes, base + y * stride, rowBytes);
    } else {
        for (int y = 0; y < S; ++y) {
            const uint8_t* src = base + y * stride;
            uint8_t* dst = rgb + y * rowBytes + rowBytes - 3;
            for (int x = 0; x < S; ++x, src += 3, dst -= 3) {
                dst[0] = src[0];
                dst[1] = src[1];
                dst[2] = src[2];
            }
        }
    }
}

std::string PackedCacheSource::describe() const {
    return "packed cache '" + dir_ + "' (" + std::to_string(records_.size()) + " images, " + std::to_string(cityCount_) + " cities, " +
           std::to_string(params_.size) + " px, " + std::to_string(s3_ ? shardFiles_.size() : shards_.size()) + " shards" +
           (root_.empty() ? std::string() : ", from '" + root_ + "'") + ")" + (chosenFor_.empty() ? std::string() : ", chosen for '" + chosenFor_ + "'");
}

void PackedCacheSource::verify(const std::string& dir) {
    const Parsed p = parseIndex(dir);
    std::vector<char> buf(size_t{4} << 20);
    for (const Shard& s : p.shards) {
        checkShardFile(dir, s);
        const std::string path = dir + "/" + s.file;
        std::ifstream in(path, std::ios::binary);
        if (!in) throw DataError("cannot read packed cache shard '" + path + "': " + std::strerror(errno) + repack(dir));
        uint32_t crc = 0;
        int64_t total = 0;
        while (in) {
            in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
            const std::streamsize n = in.gcount();
            if (n <= 0) break;
            crc = Crc32c::extend(crc, buf.data(), static_cast<size_t>(n));
            total += n;
        }
        if (in.bad() || total != s.bytes)
            throw DataError("cannot read all of packed cache shard '" + path + "' (" + std::to_string(total) + " of " + std::to_string(s.bytes) + " bytes)" +
                            repack(dir));
        if (crc != s.crc) throw DataError("packed cache shard '" + path + "' is corrupt (CRC-32C mismatch: the file changed after packing)" + repack(dir));
    }
}

}  // namespace streetgan
