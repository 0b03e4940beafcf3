#include "ml/dataset/PackedCacheWriter.h"

#include "ml/dataset/PackedCacheSource.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "base/util/AtomicFile.h"
#include "base/util/Crc32c.h"
#include "base/util/Errors.h"
#include "base/util/ImageResize.h"
#include "ml/dataset/ImageDecoder.h"

namespace streetgan {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kFormat = "streetgan-packed-cache";

struct Band {
    std::vector<uint8_t> rgb;  // size x cols x 3
    int cols = 0, margin = 0, width = 0, height = 0, reduction = 1, crop = 0;
};

using Record = PackedCacheSource::Record;  // index.json's record, read back with recordFromJson

struct ShardInfo {
    std::string file;
    int64_t bytes = 0, records = 0;
    uint32_t crc = 0;
};

struct State {
    std::vector<Record> records;
    std::vector<ShardInfo> shards;
    std::map<std::string, int64_t> skipped;
    std::vector<std::pair<std::string, std::string>> skippedImages;  // path, reason
    int64_t nextEntry = 0;
};

std::string sysError(int err) {
    if (err == ENOSPC || err == EDQUOT) return "the disk is full: free some space and pack again (it resumes)";
    return std::strerror(err);
}

// The band of Augmentation::applyU8's geometry that any shift can reach (see the header).
Band makeBand(const DecodedImage& img, const AugmentParams& p) {
    const int C = Augmentation::cropSide(p);
    const int W = img.sourceWidth, H = img.sourceHeight;
    if (std::min(W, H) < C)
        throw BadImageError(BadImageReason::TooSmall,
                            "a " + std::to_string(W) + "x" + std::to_string(H) + " image is smaller than the " + std::to_string(C) + " px crop");
    const int r = img.reduction;
    const int S = p.size;
    const double left = std::nearbyint((W - C) / 2.0), top = std::nearbyint((H - C) / 2.0);
    const int cd = std::clamp(static_cast<int>(std::lround(static_cast<double>(C) / r)), 1, std::min(img.width, img.height));
    const int y0 = std::clamp(static_cast<int>(std::lround(top / r)), 0, img.height - cd);
    const int xc = std::clamp(static_cast<int>(std::lround(left / r)), 0, img.width - cd);
    const double maxShiftSource = std::nearbyint(p.maxShift * W);  // largest |dx| Augmentation::draw gives
    const int md = static_cast<int>(std::lround(maxShiftSource / r));
    const int margin = cd == S ? md : static_cast<int>(std::lround(static_cast<double>(md) * S / cd));

    Band b;
    b.width = W;
    b.height = H;
    b.reduction = r;
    b.crop = cd;
    b.margin = margin;
    b.cols = S + 2 * margin;
    b.rgb.assign(static_cast<size_t>(S) * b.cols * 3, 0);

    const int bandW = cd + 2 * md, bx0 = xc - md;
    ImageResize::cropRgb(img.rgb.data(), img.width, img.height, bx0, y0, bandW, cd, b.rgb.data(), b.cols, S);
    return b;
}

std::string hex32(uint32_t v) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", v);
    return buf;
}

}  // namespace

std::string PackedCacheWriter::fingerprint(const DatasetIndex& index, const AugmentParams& p, int64_t shardBytes) {
    json head = {{"version", PackedCacheWriter::kVersion},
                 {"size", p.size},
                 {"max_shift", p.maxShift},
                 {"crop_factor", p.cropFactor},
                 {"noise_std", p.noiseStd},
                 {"flip", p.flip},
                 {"shard_bytes", shardBytes},
                 {"entries", index.size()}};
    const std::string h = head.dump();
    uint32_t a = Crc32c::compute(h.data(), h.size()), b = 0x5eed;
    for (const ImageEntry& e : index.entries()) {
        const std::string s = e.path + '\0' + std::to_string(e.size) + '\0' + e.key + '\0' + e.city + '\0' + e.sequence + '\n';
        a = Crc32c::extend(a, s.data(), s.size());
        b = Crc32c::extend(b, s.data(), s.size()) ^ (b << 1);
    }
    return hex32(a) + hex32(b);
}

namespace {

// Serialised by hand: an index of a million records is too big for a json DOM in memory twice.
std::string serialise(const State& st, const AugmentParams& p, const std::string& fp, const DatasetIndex& index, bool complete) {
    std::string out;
    out.reserve(st.records.size() * 96 + 4096);
    json head = {{"format", kFormat},
                 {"version", PackedCacheWriter::kVersion},
                 {"size", p.size},
                 {"params", {{"max_shift", p.maxShift}, {"crop_factor", p.cropFactor}, {"noise_std", p.noiseStd}, {"flip", p.flip}}},
                 {"fingerprint", fp},
                 {"root", index.root()},
                 {"images", static_cast<int64_t>(st.records.size())},
                 {"skipped", st.skipped},
                 {"index_skipped", index.skipped()}};
    if (!complete) head["next_entry"] = st.nextEntry;
    json shards = json::array();
    for (const ShardInfo& s : st.shards) shards.push_back({{"file", s.file}, {"bytes", s.bytes}, {"records", s.records}, {"crc32c", hex32(s.crc)}});
    head["shards"] = shards;
    json skippedImages = json::array();
    for (const auto& [path, reason] : st.skippedImages) skippedImages.push_back({path, reason});
    head["skipped_images"] = skippedImages;
    std::string h = head.dump(1);
    // Append "records" as the last member, one record per line.
    h.erase(h.find_last_of('}'));
    while (!h.empty() && (h.back() == '\n' || h.back() == ' ')) h.pop_back();
    out += h;
    out += ",\n \"records\": [";
    for (size_t i = 0; i < st.records.size(); ++i) {
        const Record& r = st.records[i];
        out += i ? ",\n  [" : "\n  [";
        out += json(r.key).dump() + "," + json(r.city).dump() + "," + json(r.sequence).dump();
        for (int64_t v : {r.shard, r.offset, int64_t{r.cols}, int64_t{r.margin}, int64_t{r.width}, int64_t{r.height}, int64_t{r.reduction}, int64_t{r.crop}})
            out += "," + std::to_string(v);
        out += "]";
    }
    out += "\n ]\n}\n";
    return out;
}

State parseState(const json& j) {
    State st;
    st.nextEntry = j.value("next_entry", int64_t{0});
    for (const auto& s : j.at("shards"))
        st.shards.push_back({s.at("file").get<std::string>(), s.at("bytes").get<int64_t>(), s.at("records").get<int64_t>(),
                             static_cast<uint32_t>(std::stoul(s.at("crc32c").get<std::string>(), nullptr, 16))});
    st.skipped = j.at("skipped").get<std::map<std::string, int64_t>>();
    for (const auto& s : j.at("skipped_images")) st.skippedImages.emplace_back(s.at(0).get<std::string>(), s.at(1).get<std::string>());
    for (const auto& r : j.at("records")) st.records.push_back(PackedCacheSource::recordFromJson(r));
    return st;
}

void fsyncDir(const std::string& dir) {
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

// Removes shard files numbered >= firstStale and every temporary file.
void cleanDir(const std::string& dir, int64_t firstStale) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        const bool tmp = name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0;
        const bool tmpAtomic = name.find(".tmp.") != std::string::npos;
        long n = -1;
        const bool shard =
            name.size() == 15 && name.rfind("shard_", 0) == 0 && name.compare(11, 4, ".bin") == 0 && std::sscanf(name.c_str() + 6, "%5ld", &n) == 1;
        if (tmp || tmpAtomic || (shard && n >= firstStale)) fs::remove(e.path(), ec);
    }
}

class ShardFile {
public:
    ~ShardFile() { abandon(); }
    bool open() const { return fd_ >= 0; }
    void start(const std::string& path) {
        path_ = path;
        fd_ = ::open((path + ".tmp").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd_ < 0) throw IoError("cannot write '" + path + ".tmp': " + sysError(errno));
        bytes_ = 0;
        crc_ = 0;
    }
    void append(const uint8_t* data, size_t size) {
        size_t left = size;
        const uint8_t* p = data;
        while (left > 0) {
            const ssize_t n = ::write(fd_, p, left);
            if (n < 0) {
                if (errno == EINTR) continue;
                const int err = errno;
                abandon();
                throw IoError("cannot write '" + path_ + ".tmp': " + sysError(err));
            }
            p += n;
            left -= static_cast<size_t>(n);
        }
        crc_ = Crc32c::extend(crc_, data, size);
        bytes_ += static_cast<int64_t>(size);
    }
    void finish() {
        if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
            const int err = errno;
            fd_ = -1;
            ::unlink((path_ + ".tmp").c_str());
            throw IoError("cannot write '" + path_ + "': " + sysError(err));
        }
        fd_ = -1;
        if (::rename((path_ + ".tmp").c_str(), path_.c_str()) != 0) throw IoError("cannot rename '" + path_ + ".tmp': " + sysError(errno));
    }
    void abandon() {
        if (fd_ >= 0) {
            ::close(fd_);
            ::unlink((path_ + ".tmp").c_str());
            fd_ = -1;
        }
    }
    int64_t bytes() const { return bytes_; }
    uint32_t crc() const { return crc_; }

private:
    std::string path_;
    int fd_ = -1;
    int64_t bytes_ = 0;
    uint32_t crc_ = 0;
};

}  // namespace

PackedCacheWriter::ByteReader PackedCacheWriter::folderReader(const std::string& root) {
    return [root](const ImageEntry& e) {
        const std::string path = root + "/" + e.path;
        std::ifstream in(path, std::ios::binary);
        if (!in) throw IoError("cannot read '" + path + "': " + std::strerror(errno));
        std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (in.bad()) throw IoError("cannot read '" + path + "'");
        return bytes;
    };
}

PackedCacheWriter::Summary PackedCacheWriter::pack(const DatasetIndex& index, const ByteReader& readBytes, const std::string& outDir,
                                                   const AugmentParams& params, const Progress& progress, const std::atomic<bool>* cancel, int64_t shardBytes,
                                                   int threads) {
    Augmentation::validate(params);
    if (shardBytes < 1) throw ConfigError("packed cache shard size " + std::to_string(shardBytes) + " is out of range: use at least 1 byte (default 1 GiB)");
    if (shardBytes > (int64_t{1} << 40)) throw ConfigError("packed cache shard size is too large: use at most 1 TiB (default 1 GiB)");
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::min(16u, std::thread::hardware_concurrency())));
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (!fs::is_directory(outDir)) throw IoError("cannot create the packed cache folder '" + outDir + "': " + ec.message());

    const std::string fp = fingerprint(index, params, shardBytes);
    const std::string indexPath = outDir + "/index.json", progressPath = outDir + "/progress.json";
    Summary summary;
    summary.fingerprint = fp;

    // A complete cache of the same input: nothing to do.
    if (fs::exists(indexPath)) {
        try {
            const json j = json::parse(AtomicFile::read(indexPath));
            bool intact = j.value("fingerprint", std::string()) == fp && j.value("version", 0) == kVersion;
            // A shard deleted or cut short since (a full disk, a careless rm): packed again.
            for (const json& shard : intact ? j.at("shards") : json::array()) {
                std::error_code sec;
                const auto sz = fs::file_size(outDir + "/" + shard.at("file").get<std::string>(), sec);
                intact = intact && !sec && static_cast<int64_t>(sz) == shard.at("bytes").get<int64_t>();
            }
            if (intact) {
                summary.complete = summary.alreadyComplete = true;
                summary.images = j.at("images").get<int64_t>();
                summary.shards = static_cast<int64_t>(j.at("shards").size());
                summary.skipped = j.at("skipped").get<std::map<std::string, int64_t>>();
                summary.resumedFromEntry = index.size();
                return summary;
            }
        } catch (const json::exception&) {}
        fs::remove(indexPath, ec);
    }

    // Resume from progress.json when it belongs to this input and its shards are intact.
    State st;
    bool resumed = false;
    if (fs::exists(progressPath)) {
        try {
            const json j = json::parse(AtomicFile::read(progressPath));
            if (j.value("fingerprint", std::string()) == fp && j.value("version", 0) == kVersion) {
                State candidate = parseState(j);
                bool intact = true;
                for (size_t s = 0; s < candidate.shards.size() && intact; ++s) {
                    std::error_code sec;
                    const auto sz = fs::file_size(outDir + "/" + candidate.shards[s].file, sec);
                    intact = !sec && static_cast<int64_t>(sz) == candidate.shards[s].bytes && candidate.shards[s].file == shardName(static_cast<int64_t>(s));
                }
                if (intact && candidate.nextEntry >= 0 && candidate.nextEntry <= index.size()) {
                    st = std::move(candidate);
                    resumed = true;
                }
            }
        } catch (const json::exception&) {
        } catch (const std::invalid_argument&) {
        } catch (const std::out_of_range&) {}
    }
    if (!resumed) {
        st = State{};
        fs::remove(progressPath, ec);
    }
    cleanDir(outDir, static_cast<int64_t>(st.shards.size()));
    summary.resumedFromEntry = st.nextEntry;

    const DecodeRequest request = Augmentation::decodeRequest(params);
    const int64_t total = index.size();
    const auto& entries = index.entries();
    ShardFile shard;
    int64_t shardRecords = 0;

    auto finishShard = [&](int64_t nextEntry) {
        shard.finish();
        fsyncDir(outDir);
        st.shards.push_back({shardName(static_cast<int64_t>(st.shards.size())), shard.bytes(), shardRecords, shard.crc()});
        shardRecords = 0;
        st.nextEntry = nextEntry;
        AtomicFile::write(progressPath, serialise(st, params, fp, index, false));
    };
    auto fillSummary = [&]() {
        summary.images = static_cast<int64_t>(st.records.size());
        summary.shards = static_cast<int64_t>(st.shards.size());
        summary.skipped = st.skipped;
    };

    const int64_t batch = std::max<int64_t>(8, int64_t{threads} * 4);
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<std::optional<Band>> bands;
    std::vector<std::string> reasons;
    std::vector<std::exception_ptr> errors;
    if (progress) progress(st.nextEntry, total);

    for (int64_t begin = st.nextEntry; begin < total; begin += batch) {
        if (cancel && cancel->load()) {
            shard.abandon();
            fillSummary();
            return summary;
        }
        const int64_t n = std::min(batch, total - begin);
        bytes.assign(static_cast<size_t>(n), {});
        bands.assign(static_cast<size_t>(n), std::nullopt);
        reasons.assign(static_cast<size_t>(n), std::string());
        errors.assign(static_cast<size_t>(n), nullptr);
        for (int64_t i = 0; i < n; ++i) {
            try {
                bytes[static_cast<size_t>(i)] = readBytes(entries[static_cast<size_t>(begin + i)]);
            } catch (const IoError&) {
                reasons[static_cast<size_t>(i)] = "unreadable";
            }
        }
        std::atomic<int64_t> next{0};
        auto work = [&]() {
            for (int64_t i; (i = next.fetch_add(1)) < n;) {
                const size_t k = static_cast<size_t>(i);
                if (!reasons[k].empty()) continue;
                try {
                    const DecodedImage img = ImageDecoder::decode(bytes[k].data(), bytes[k].size(), request, entries[static_cast<size_t>(begin + i)].path);
                    bands[k] = makeBand(img, params);
                } catch (const BadImageError& e) {
                    reasons[k] = ImageDecoder::reasonName(e.reason());
                } catch (...) {
                    errors[k] = std::current_exception();
                }
                std::vector<uint8_t>().swap(bytes[k]);
            }
        };
        const int nThreads = static_cast<int>(std::min<int64_t>(threads, n));
        if (nThreads <= 1) {
            work();
        } else {
            std::vector<std::thread> pool;
            for (int t = 0; t < nThreads; ++t) pool.emplace_back(work);
            for (auto& t : pool) t.join();
        }
        for (int64_t i = 0; i < n; ++i) {
            const size_t k = static_cast<size_t>(i);
            const ImageEntry& e = entries[static_cast<size_t>(begin + i)];
            if (errors[k]) {
                shard.abandon();
                std::rethrow_exception(errors[k]);
            }
            if (!bands[k]) {
                ++st.skipped[reasons[k]];
                st.skippedImages.emplace_back(e.path, reasons[k]);
            } else {
                const Band& b = *bands[k];
                if (shard.open() && shard.bytes() > 0 && shard.bytes() + static_cast<int64_t>(b.rgb.size()) > shardBytes) finishShard(begin + i);
                if (!shard.open()) shard.start(outDir + "/" + shardName(static_cast<int64_t>(st.shards.size())));
                Record r;
                r.key = e.key;
                r.city = e.city;
                r.sequence = e.sequence;
                r.shard = static_cast<int64_t>(st.shards.size());
                r.offset = shard.bytes();
                r.cols = b.cols;
                r.margin = b.margin;
                r.width = b.width;
                r.height = b.height;
                r.reduction = b.reduction;
                r.crop = b.crop;
                shard.append(b.rgb.data(), b.rgb.size());
                ++shardRecords;
                st.records.push_back(std::move(r));
                bands[k].reset();
            }
            if (progress) progress(begin + i + 1, total);
        }
    }
    if (shard.open()) finishShard(total);
    st.nextEntry = total;
    if (st.records.empty()) {
        fs::remove(progressPath, ec);
        std::string why;
        for (const auto& [reason, count] : st.skipped) why += (why.empty() ? "" : ", ") + std::to_string(count) + " " + reason;
        throw DataError("packed cache: no usable image among " + std::to_string(total) + " entries of '" + index.root() + "'" +
                        (why.empty() ? std::string() : " (skipped: " + why + ")") + "; check the data folder");
    }
    AtomicFile::write(indexPath, serialise(st, params, fp, index, true));
    fs::remove(progressPath, ec);
    fsyncDir(outDir);
    fillSummary();
    summary.complete = true;
    return summary;
}

}  // namespace streetgan
