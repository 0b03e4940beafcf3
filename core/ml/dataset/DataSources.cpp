#include "ml/dataset/DataSources.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "base/dataset/PackRegistry.h"
#include "base/remote/ShellQuote.h"
#include "base/run/DataPathChoice.h"
#include "base/run/TrainConfig.h"
#include "base/s3/S3ArchiveDataset.h"
#include "base/s3/S3Dataset.h"
#include "base/s3/S3Url.h"
#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "ml/dataset/ImageDecoder.h"
#include "ml/dataset/PackedCacheSource.h"
#include "ml/dataset/PhotoListing.h"
#include "ml/dataset/PhotoSource.h"
#include "ml/dataset/SyntheticSource.h"

namespace streetgan {

std::shared_ptr<const ImageSource> DataSources::open(const std::string& spec, const TrainConfig& cfg) {
    if (spec == "synthetic") return std::make_shared<SyntheticSource>(cfg.seed, cfg.syntheticImages);
    if (s3::S3Url::isS3(spec)) {
        if (isS3Archive(spec)) return photos(spec, indexOptions(cfg), augmentParams(cfg), s3Options(cfg));
        const auto bucket = openS3(spec, s3Options(cfg));
#if STREETGAN_WITH_PHOTOS
        if (!isPackedCache(*bucket)) return PhotoSource::fromListing(s3Photos(spec, s3Options(cfg), bucket), indexOptions(cfg), augmentParams(cfg));
#else
        if (!isPackedCache(*bucket)) BuildFeatures::missing("data source '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
        auto cache = PackedCacheSource::s3(bucket);
        if (cache->params().size != cfg.model.imgSize)
            throw DataError("packed cache '" + spec + "' holds " + std::to_string(cache->params().size) + " px images but the model is " +
                            std::to_string(cfg.model.imgSize) + " px: pack it again with --size " + std::to_string(cfg.model.imgSize));
        return cache;
    }
    std::error_code ec;
    if (std::filesystem::exists(spec + "/index.json", ec) && std::filesystem::exists(spec + "/shard_00000.bin", ec)) {
        auto cache = std::make_shared<PackedCacheSource>(spec);
        if (cache->params().size != cfg.model.imgSize)
            throw DataError("packed cache '" + spec + "' holds " + std::to_string(cache->params().size) + " px images but the model is " +
                            std::to_string(cfg.model.imgSize) + " px: pack it again with --size " + std::to_string(cfg.model.imgSize));
        return cache;
    }
    if (!std::filesystem::exists(spec, ec)) throw DataError("data source '" + spec + "' does not exist: give a folder of images or 'synthetic'");
    return photos(spec, indexOptions(cfg), augmentParams(cfg));
}

#if STREETGAN_WITH_PHOTOS
namespace {

// Source width over crop side, the widest of a few photos spread over the index (probed from
// their headers): what a pack's margins take (DataPathChoice::estimatePackBytes).
double widthPerCrop(const DataSources::PackInput& input, const AugmentParams& params) {
    double widest = 0;
    const auto& entries = input.index.entries();
    const size_t n = std::min<size_t>(entries.size(), 8);
    for (size_t i = 0; i < n; ++i) {
        const ImageEntry& e = entries[i * entries.size() / n];
        try {
            const std::vector<uint8_t> bytes = input.read(e);
            widest = std::max(widest, static_cast<double>(ImageDecoder::probe(bytes.data(), bytes.size(), e.path).width));
        } catch (const Error&) {
            continue;  // a bad photo: the others tell
        }
    }
    if (widest <= 0) widest = 4.0 / 3.0 * params.cropFactor * params.size;  // none readable: a 4:3 photo cropped to its height
    return widest / (params.cropFactor * params.size);
}

// Free bytes on the disk `dir` goes to (its nearest existing ancestor's); -1 when unknown.
int64_t freeBytesFor(std::filesystem::path dir) {
    std::error_code ec;
    while (!dir.empty() && !std::filesystem::exists(dir, ec)) dir = dir.parent_path();
    const auto space = std::filesystem::space(dir.empty() ? std::filesystem::path(".") : dir, ec);
    return ec ? -1 : static_cast<int64_t>(space.available);
}

}  // namespace
#endif

std::shared_ptr<const ImageSource> DataSources::openForTraining(const std::string& spec, const TrainConfig& cfg, bool cuda, int worldSize,
                                                                const std::function<void(const std::string&)>& say, const std::atomic<bool>* cancel) {
    const DataPathChoice::Mode mode = DataPathChoice::parseMode(cfg.dataPath);
#if STREETGAN_WITH_PHOTOS
    std::error_code ec;
    const bool s3 = s3::S3Url::isS3(spec);
    const bool localCache = !s3 && std::filesystem::exists(spec + "/index.json", ec) && std::filesystem::exists(spec + "/shard_00000.bin", ec);
    const bool folder = !s3 && !localCache && spec != "synthetic" && std::filesystem::is_directory(spec, ec);
    std::shared_ptr<const s3::S3Dataset> bucket;
    if (s3 && !isS3Archive(spec) && mode != DataPathChoice::Mode::Photos) bucket = openS3(spec, s3Options(cfg));
    const bool s3Folder = bucket && !isPackedCache(*bucket);
    if (mode == DataPathChoice::Mode::Photos || !(folder || s3Folder)) {
        if (mode == DataPathChoice::Mode::Packed && (isS3Archive(spec) || (!s3 && !localCache && spec != "synthetic")))
            throw ConfigError("--data-path packed packs a folder of photos or an s3:// prefix of them, and '" + spec +
                              "' is neither: extract the archive, or use --data-path auto");
        return open(spec, cfg);  // no photos to choose for (synthetic, a packed cache, an archive)
    }
    const PackRegistry registry;
    const std::vector<PackRegistry::Entry> registered = registry.forSource(PackRegistry::sourceKey(spec, cfg.s3Endpoint));
    if (registered.empty() && mode == DataPathChoice::Mode::Auto && !cuda)
        return bucket ? PhotoSource::fromListing(s3Photos(spec, s3Options(cfg), bucket), indexOptions(cfg), augmentParams(cfg))
                      : photos(spec, indexOptions(cfg), augmentParams(cfg));  // nothing to choose from: no second scan of the photos

    PackInput input = packInput(spec, cfg, bucket);
    const AugmentParams params = augmentParams(cfg);
    DataPathChoice::Inputs in;
    in.mode = mode;
    in.spec = spec;
    in.packCommand = packCommand(spec, cfg);
    in.cuda = cuda;
    in.worldSize = worldSize;
    std::shared_ptr<PackedCacheSource> match;
    for (const PackRegistry::Entry& e : registered) {
        if (e.size != params.size) continue;  // a pack for runs at another size
        if (PackedCacheWriter::fingerprint(input.index, params, e.shardBytes) != e.fingerprint) {
            if (in.staleDir.empty()) in.staleDir = e.dir;
            continue;
        }
        try {
            auto cache = std::make_shared<PackedCacheSource>(e.dir);
            if (cache->fingerprint() != e.fingerprint) continue;  // packed again since, from other photos or settings
            match = std::move(cache);
            in.matchDir = e.dir;
            break;
        } catch (const Error&) {
            continue;  // deleted, moved or damaged since: not a match
        }
    }
    const std::string fingerprint = PackedCacheWriter::fingerprint(input.index, params);
    in.packDir = PackRegistry::defaultDir(fingerprint);
    if (!match) {
        const double images = static_cast<double>(std::max<int64_t>(1, input.index.size()));
        in.epochs = cfg.steps > 0 ? static_cast<double>(cfg.steps) * static_cast<double>(cfg.batch) * worldSize / images : static_cast<double>(cfg.epochs);
        // Only where packing can be chosen: the estimate reads 8 photos (8 GETs from a bucket).
        if (mode == DataPathChoice::Mode::Packed || (cuda && worldSize == 1 && in.epochs >= DataPathChoice::kMinEpochsToPack)) {
            in.packBytes = DataPathChoice::estimatePackBytes(input.index.size(), params.size, params.maxShift, widthPerCrop(input, params));
            in.freeBytes = freeBytesFor(in.packDir);
        }
    }
    const DataPathChoice::Choice choice = DataPathChoice::decide(in);
    if (!choice.message.empty() && say) say(choice.message);
    if (choice.kind == DataPathChoice::Kind::UsePack) {
        match->chosenFor(spec);
        return match;
    }
    if (choice.kind == DataPathChoice::Kind::PackFirst) {
        int64_t shown = -1;
        const auto progress = [&](int64_t done, int64_t total) {
            const int64_t tenth = total > 0 ? done * 10 / total : 10;
            if (tenth == shown || !say) return;
            shown = tenth;
            say("data: packing " + std::to_string(done) + "/" + std::to_string(total) + " images");
        };
        const PackedCacheWriter::Summary packed = pack(input, spec, cfg, in.packDir, progress, cancel);
        if (!packed.complete)
            throw DataError("packing '" + spec + "' for this run stopped after " + std::to_string(packed.images) + " of " + std::to_string(input.index.size()) +
                            " images: start the run again to go on packing, or give --data-path photos");
        auto cache = std::make_shared<PackedCacheSource>(in.packDir);
        cache->chosenFor(spec);
        return cache;
    }
    return PhotoSource::fromListing(*input.listing, indexOptions(cfg), params);
#else
    (void)cuda;
    (void)worldSize;
    (void)say;
    (void)cancel;
    if (mode == DataPathChoice::Mode::Packed && spec != "synthetic") BuildFeatures::missing("--data-path packed", BuildFeatures::Feature::Photos);
    return open(spec, cfg);
#endif
}

std::string DataSources::packCommand(const std::string& spec, const TrainConfig& cfg) {
    const TrainConfig defaults;
    // The shortest text that reads back as the same double (the pack's fingerprint holds the value):
    // printf by hand, as GCC 10 (the Debian 11 floor build) has no std::to_chars for double.
    const auto number = [](double v) {
        char buf[64];
        for (int precision = 1; precision <= 17; ++precision) {
            std::snprintf(buf, sizeof buf, "%.*g", precision, v);
            if (std::strtod(buf, nullptr) == v) break;
        }
        return std::string(buf);
    };
    const auto list = [](const std::vector<std::string>& names) {
        std::string s;
        for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
        return ShellQuote::quote(s);
    };
    std::string c = "streetgan-trainer data pack " + ShellQuote::quote(spec) + " --size " + std::to_string(cfg.model.imgSize);
    if (cfg.cropFactor != defaults.cropFactor) c += " --crop-factor " + number(cfg.cropFactor);
    if (cfg.maxShift != defaults.maxShift) c += " --max-shift " + number(cfg.maxShift);
    if (cfg.augNoise != defaults.augNoise) c += " --aug-noise " + number(cfg.augNoise);
    if (cfg.flip) c += " --flip";
    if (cfg.validationPercent != defaults.validationPercent) c += " --validation-percent " + number(cfg.validationPercent);
    if (!cfg.cities.empty()) c += " --cities " + list(cfg.cities);
    if (!cfg.excludeCities.empty()) c += " --exclude-cities " + list(cfg.excludeCities);
    if (cfg.maxPerSequence != defaults.maxPerSequence) c += " --max-per-sequence " + std::to_string(cfg.maxPerSequence);
    if (!cfg.s3Endpoint.empty()) c += " --s3-endpoint " + ShellQuote::quote(cfg.s3Endpoint);
    return c;
}

DataSources::PackInput DataSources::packInput(const std::string& spec, const TrainConfig& cfg, std::shared_ptr<const s3::S3Dataset> opened) {
    PackInput in;
#if STREETGAN_WITH_PHOTOS
    // One listing for the choice, the pack and the photos: a run that decodes after all (auto on a
    // GPU without a pack) opens it again instead of walking a folder of a million files twice.
    if (s3::S3Url::isS3(spec))
        in.listing.emplace(s3Photos(spec, s3Options(cfg), std::move(opened)));
    else
        in.listing.emplace(PhotoListing::folder(spec));
    in.index = DatasetIndex::fromListing(in.listing->listing(), indexOptions(cfg));
    in.index.requireNonEmpty(spec);
    in.read = PhotoListing::readingAhead(in.index.entries(), in.listing->reader(), in.listing->prefetcher(), in.listing->prefetchWindow());
#else
    (void)cfg;
    (void)opened;
    BuildFeatures::missing("packing '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
    return in;
}

PackedCacheWriter::Summary DataSources::pack(const PackInput& input, const std::string& spec, const TrainConfig& cfg, const std::string& outDir,
                                             const PackedCacheWriter::Progress& progress, const std::atomic<bool>* cancel) {
#if STREETGAN_WITH_PHOTOS
    const AugmentParams params = augmentParams(cfg);
    PackedCacheWriter::Summary summary = PackedCacheWriter::pack(input.index, input.read, outDir, params, progress, cancel);
    if (summary.complete) {
        PackRegistry::Entry e;
        e.dir = std::filesystem::absolute(outDir).lexically_normal().string();
        e.source = PackRegistry::sourceKey(spec, cfg.s3Endpoint);
        e.fingerprint = summary.fingerprint;
        e.shardBytes = PackedCacheWriter::kDefaultShardBytes;
        e.size = params.size;
        e.images = summary.images;
        PackRegistry().add(e);  // not recorded (an unwritable cache folder): the pack works, it is just not found by itself
    }
    return summary;
#else
    (void)input;
    (void)cfg;
    (void)outDir;
    (void)progress;
    (void)cancel;
    BuildFeatures::missing("packing '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
}

std::shared_ptr<const ImageSource> DataSources::photos(const std::string& spec, const IndexOptions& index, const AugmentParams& augment,
                                                       const s3::S3LoadOptions& s3) {
#if STREETGAN_WITH_PHOTOS
    if (s3::S3Url::isS3(spec)) return PhotoSource::fromListing(s3Photos(spec, s3), index, augment);
    std::error_code ec;
    if (std::filesystem::is_directory(spec, ec)) return PhotoSource::folder(spec, index, augment);
    return PhotoSource::archive(spec, index, augment);  // not an archive: DataError naming it
#else
    (void)s3;
    BuildFeatures::missing("data source '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
}

s3::S3LoadOptions DataSources::s3Options(const TrainConfig& cfg) {
    s3::S3LoadOptions o;
    o.endpoint = cfg.s3Endpoint;
    o.concurrency = cfg.s3Concurrency;
    o.cacheDir = cfg.s3Cache;
    o.cacheGb = cfg.s3CacheGb;
    o.listingMaxAgeHours = cfg.s3ListingMaxAge;
    return o;
}

std::shared_ptr<const s3::S3Dataset> DataSources::openS3(const std::string& spec, const s3::S3LoadOptions& options) {
    return s3::S3Dataset::open(spec, options);
}

bool DataSources::isS3Archive(const std::string& spec) {
    for (const std::string ext : {".zip", ".tar", ".tar.gz", ".tgz"})
        if (spec.size() > ext.size() && spec.compare(spec.size() - ext.size(), ext.size(), ext) == 0) return true;
    return false;
}

PhotoListing DataSources::s3Photos(const std::string& spec, const s3::S3LoadOptions& options, std::shared_ptr<const s3::S3Dataset> opened) {
#if STREETGAN_WITH_PHOTOS
    if (isS3Archive(spec)) return PhotoListing::s3Archive(s3::S3ArchiveDataset::open(spec, options));
    return PhotoListing::s3(opened ? std::move(opened) : openS3(spec, options));
#else
    // PhotoListing is not compiled without photos (the GPU bundle reads packed caches only).
    (void)options;
    (void)opened;
    BuildFeatures::missing("data source '" + spec + "'", BuildFeatures::Feature::Photos);
#endif
}

bool DataSources::isPackedCache(const s3::S3Dataset& bucket) { return bucket.find("index.json") && bucket.find("shard_00000.bin"); }

std::shared_ptr<const ImageSource> DataSources::openHeldOut(const std::string& spec, const TrainConfig& cfg) {
    IndexOptions o = indexOptions(cfg);
    o.validationPercent = cfg.validationPercent > 0 ? cfg.validationPercent : 5.0;
    o.split = IndexOptions::Split::Validation;
    AugmentParams a = augmentParams(cfg);
    a.maxShift = 0;
    a.noiseStd = 0;
    a.flip = false;
    if (spec == "synthetic") throw DataError("held-out synthetic scenes are indexed directly, not opened as a source");
    return photos(spec, o, a, s3Options(cfg));
}

IndexOptions DataSources::indexOptions(const TrainConfig& cfg) {
    IndexOptions o;
    o.includeCities = cfg.cities;
    o.excludeCities = cfg.excludeCities;
    o.maxPerSequence = cfg.maxPerSequence;
    o.validationPercent = cfg.validationPercent;
    o.split = cfg.validationPercent > 0 ? IndexOptions::Split::Train : IndexOptions::Split::All;
    return o;
}

AugmentParams DataSources::augmentParams(const TrainConfig& cfg) {
    AugmentParams a;
    a.size = static_cast<int>(cfg.model.imgSize);
    a.maxShift = cfg.maxShift;
    a.cropFactor = cfg.cropFactor;
    a.noiseStd = cfg.augNoise;
    a.flip = cfg.flip;
    return a;
}

}  // namespace streetgan
