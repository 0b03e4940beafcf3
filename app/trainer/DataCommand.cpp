#include "trainer/DataCommand.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <set>

#include "base/dataset/DatasetIndex.h"
#include "base/dataset/ImageLabels.h"
#include "base/dataset/MslsLabelReader.h"
#include "base/dataset/PackRegistry.h"
#include "base/s3/S3Dataset.h"
#include "base/s3/S3Url.h"
#include "base/synthetic/SyntheticStreets.h"
#include "base/util/AtomicFile.h"
#include "base/util/BuildFeatures.h"
#include "base/util/Errors.h"
#include "ml/dataset/DataSources.h"
#if STREETGAN_WITH_PHOTOS
#include "ml/dataset/ImageCodecs.h"
#endif
#include "ml/dataset/PackedCacheSource.h"
#include "ml/dataset/PackedCacheWriter.h"
#include "ml/dataset/PhotoListing.h"
#include "ml/dataset/PhotoSource.h"
#include "trainer/S3DataOptions.h"

namespace streetgan {

CLI::App* DataCommand::setup(CLI::App& parent) {
    auto* data = parent.add_subcommand("data", "Inspect data sources");
    data->require_subcommand(1);
    stats_ = data->add_subcommand("stats", "Images, skipped files by reason, cities and sequences of a data source");
    stats_->add_option("spec", spec_, "synthetic, a folder of photos, an archive, a packed cache, or s3://bucket/prefix (a photo folder or packed cache in S3)")
        ->required();
    S3DataOptions::add(*stats_, cfg_);
    stats_->add_option("--cities", cfg_.cities, "Keep only these cities")->delimiter(',');
    stats_->add_option("--exclude-cities", cfg_.excludeCities, "Drop these cities")->delimiter(',');
    stats_->add_option("--max-per-sequence", cfg_.maxPerSequence, "Cap of training images per sequence")->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
    stats_->add_option("--validation-percent", cfg_.validationPercent, "Held-out share by key hash")->check(CLI::Range(0.0, 99.0));
    stats_->add_flag("--json", json_, "One JSON document on stdout (every skipped file named)");
    stats_->add_flag("--no-decode", noDecode_, "List only: do not decode images whose verdict is not cached yet (fast, may count bad files as images)");
    synth_ = data->add_subcommand("synth", "Write synthetic street scenes as JPEG files (MSLS-like 640x480 by default)");
    synth_->add_option("--count", count_, "Scenes")->check(CLI::Range(int64_t{1}, int64_t{10000000}));
    synth_->add_option("--out", out_, "Output folder (scenes go to OUT/synthetic/<index>.jpg)")->required();
    synth_->add_option("--width", width_, "Width in pixels")->check(CLI::Range(16, 2048));
    synth_->add_option("--height", height_, "Height in pixels")->check(CLI::Range(16, 2048));
    synth_->add_option("--quality", quality_, "JPEG quality")->check(CLI::Range(1, 100));
    synth_->add_option("--seed", seed_, "Seed of the scenes");
    pack_ = data->add_subcommand("pack", "Pre-crop and pre-scale a folder of photos into a packed shard cache (resumable)");
    pack_->add_option("spec", spec_, "Folder of photos, or s3://bucket/prefix (a photo folder in S3)")->required();
    S3DataOptions::add(*pack_, cfg_);
    pack_->add_option("--size", size_, "Image side the cache serves")->required()->check(CLI::IsMember({32, 64, 128, 256}));
    pack_->add_option("--out", out_, "Cache folder (default: the packs cache, $XDG_CACHE_HOME/streetgan/packs, where `train --data SPEC` finds it by itself)");
    pack_->add_option("--crop-factor", cfg_.cropFactor, "Centre crop side = factor x size source pixels")->check(CLI::Range(0.01, 64.0));
    pack_->add_option("--max-shift", cfg_.maxShift, "Largest horizontal shift the cache keeps room for")->check(CLI::Range(0.0, 1.0));
    pack_->add_option("--aug-noise", cfg_.augNoise, "Gaussian noise std the cache's runs add to real images ([0,1] units)")->check(CLI::Range(0.0, 10.0));
    pack_->add_flag("--flip", cfg_.flip, "The cache's runs mirror real images at random");
    pack_->add_option("--validation-percent", cfg_.validationPercent, "Leave out this share by key hash (a run's held-out photos)")
        ->check(CLI::Range(0.0, 99.0));
    pack_->add_option("--cities", cfg_.cities, "Keep only these cities")->delimiter(',');
    pack_->add_option("--exclude-cities", cfg_.excludeCities, "Drop these cities")->delimiter(',');
    pack_->add_option("--max-per-sequence", cfg_.maxPerSequence, "Cap of images per sequence")->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
    verify_ = data->add_subcommand("verify", "Check a packed cache's shards (CRC32C) and index");
    verify_->add_option("dir", spec_, "Cache folder, or s3://bucket/prefix (a packed cache in S3: every shard read back)")->required();
    S3DataOptions::add(*verify_, cfg_);
    labels_ = data->add_subcommand("labels", "Labels of a data set's images (MSLS metadata, synthetic scene parameters, city) with classes and counts");
    labels_->add_option("--data", spec_, "synthetic, an MSLS folder (train_val, a city, a database/query folder) or an MSLS batch (.zip, .tar, .tar.gz)")
        ->required();
    labels_
        ->add_option("--labels", wantedLabels_,
                     "Labels a direction will be fitted on (e.g. night,view_direction): each must exist and have two classes or more")
        ->delimiter(',');
    labels_->add_option("--images", cfg_.syntheticImages, "Synthetic scenes labelled")->check(CLI::Range(int64_t{1}, int64_t{100000000}));
    labels_->add_option("--seed", seed_, "Seed of the synthetic scenes");
    labels_->add_flag("--json", json_, "One JSON document on stdout");
    return data;
}

int DataCommand::execute() {
    if (synth_->parsed()) return synth();
    if (pack_->parsed()) return pack();
    if (verify_->parsed()) return verify();
    if (labels_->parsed()) return labels();
    return stats();
}

namespace {
std::atomic<bool> gCancel{false};
void onSignal(int) { gCancel.store(true); }
}  // namespace

int DataCommand::pack() {
#if !STREETGAN_WITH_PHOTOS
    BuildFeatures::missing("`data pack`", BuildFeatures::Feature::Photos);
#else
    cfg_.model.imgSize = size_;
    const DataSources::PackInput input = DataSources::packInput(spec_, cfg_);
    if (out_.empty()) out_ = PackRegistry::defaultDir(PackedCacheWriter::fingerprint(input.index, DataSources::augmentParams(cfg_)));
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    int64_t lastShown = -1;
    auto progress = [&](int64_t done, int64_t total) {
        const int64_t pct = total > 0 ? done * 100 / total : 100;
        if (tty) {
            if (pct != lastShown)
                std::fprintf(stderr, "\r\033[Kpacking %lld/%lld images %3lld%%", static_cast<long long>(done), static_cast<long long>(total),
                             static_cast<long long>(pct));
        } else if (pct / 10 != lastShown / 10) {
            std::printf("packing %lld/%lld images\n", static_cast<long long>(done), static_cast<long long>(total));
            std::fflush(stdout);
        }
        lastShown = pct;
    };
    gCancel = false;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    const auto summary = DataSources::pack(input, spec_, cfg_, out_, progress, &gCancel);
    if (tty) std::fprintf(stderr, "\r\033[K");
    if (!summary.complete) {
        std::cerr << "streetgan-trainer: packing interrupted after " << summary.images << " images: run the same command again to resume\n";
        return static_cast<int>(ExitCode::Interrupted);
    }
    int64_t skipped = 0;
    for (const auto& [k, v] : summary.skipped) skipped += v;
    std::cout << out_ << ": " << summary.images << " images in " << summary.shards << " shards, " << skipped << " skipped"
              << (summary.alreadyComplete ? " (already complete)" : "") << "\n"
              << "runs on " << spec_ << " at " << size_
              << " px with this augmentation and selection train from it by themselves (--data-path photos decodes the photos instead)\n";
    return 0;
#endif
}

int DataCommand::verify() {
    if (s3::S3Url::isS3(spec_)) {
        const auto bucket = DataSources::openS3(spec_, DataSources::s3Options(cfg_));
        PackedCacheSource::verifyS3(*bucket);
        std::cout << spec_ << ": ok, " << PackedCacheSource::s3(bucket)->size() << " images\n";
        return 0;
    }
    PackedCacheSource::verify(spec_);
    PackedCacheSource cache(spec_);
    std::cout << spec_ << ": ok, " << cache.size() << " images\n";
    return 0;
}

int DataCommand::labels() {
    const ImageLabels l = spec_ == "synthetic" ? ImageLabels::synthetic(seed_, cfg_.syntheticImages) : MslsLabelReader::read(spec_);
    const std::vector<std::string> errors = l.requireLabels(wantedLabels_, spec_);
    if (json_) {
        nlohmann::json j = l.summary(wantedLabels_);
        j["data"] = spec_;
        j["errors"] = errors;
        std::cout << j.dump() << "\n";
    } else {
        std::cout << l.summaryText(wantedLabels_);
    }
    for (const auto& e : errors) std::cerr << "streetgan-trainer: " << e << "\n";
    if (wantedLabels_.empty() && l.labels().empty()) {
        std::cerr << "streetgan-trainer: " << spec_ << " has no labels: give an MSLS folder with postprocessed.csv / raw.csv files, or 'synthetic'\n";
        return static_cast<int>(ExitCode::Data);
    }
    return errors.empty() ? 0 : static_cast<int>(ExitCode::Data);
}

int DataCommand::synth() {
#if !STREETGAN_WITH_PHOTOS
    BuildFeatures::missing("`data synth` (it writes JPEG photos)", BuildFeatures::Feature::Photos);
#else
    const std::string dir = out_ + "/synthetic";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw IoError("cannot create '" + dir + "': " + ec.message());
    SyntheticStreets streets(seed_);
    std::vector<uint8_t> rgb;
    for (int64_t i = 0; i < count_; ++i) {
        rgb = streets.render(static_cast<uint64_t>(i), width_, height_);
        const std::vector<uint8_t> jpg = image_codecs::encodeJpeg(rgb.data(), width_, height_, quality_);
        AtomicFile::write(dir + "/" + std::to_string(i) + ".jpg", jpg.data(), jpg.size());
    }
    std::cout << dir << "\n";
    return 0;
#endif
}

nlohmann::json DataCommand::packedStats(const PackedCacheSource& cache) {
    std::map<std::string, int64_t> cities;
    std::set<std::pair<std::string, std::string>> sequences;
    for (const auto& r : cache.records()) {
        ++cities[r.city];
        if (!r.sequence.empty()) sequences.emplace(r.city, r.sequence);
    }
    int64_t skipped = 0;
    for (const auto& [k, v] : cache.skipped()) skipped += v;
    return {{"images", cache.size()},
            {"skipped", skipped},
            {"skipped_reasons", cache.skipped()},
            {"cities", cities},
            {"sequences", sequences.size()},
            {"packed_size", cache.params().size}};
}

int DataCommand::stats() {
    nlohmann::json stats;
    if (spec_ == "synthetic") {
        stats = {{"images", cfg_.syntheticImages},
                 {"skipped", 0},
                 {"skipped_reasons", nlohmann::json::object()},
                 {"cities", {{"synthetic", cfg_.syntheticImages}}},
                 {"sequences", 0}};
    } else {
        std::error_code ec;
        const bool inBucket = s3::S3Url::isS3(spec_);
        if (!inBucket && !std::filesystem::exists(spec_, ec))
            throw DataError("data source '" + spec_ + "' does not exist: give a folder, an archive, s3://bucket/prefix or 'synthetic'");
        IndexOptions o = DataSources::indexOptions(cfg_);
        o.split = IndexOptions::Split::All;  // stats describe the whole selection; "split" says how it divides
        std::shared_ptr<const s3::S3Dataset> bucket;
        if (inBucket && !DataSources::isS3Archive(spec_)) bucket = DataSources::openS3(spec_, DataSources::s3Options(cfg_));
        if (bucket && DataSources::isPackedCache(*bucket)) {
            stats = packedStats(*PackedCacheSource::s3(bucket));
        } else if (!inBucket && std::filesystem::exists(spec_ + "/index.json", ec) && std::filesystem::exists(spec_ + "/shard_00000.bin", ec)) {
            stats = packedStats(PackedCacheSource(spec_));  // what a run from this cache trains on
        } else {
#if !STREETGAN_WITH_PHOTOS
            BuildFeatures::missing("data source '" + spec_ + "'", BuildFeatures::Feature::Photos);
#else
            // The same listing and verdicts PhotoSource trains from, so the counts agree.
            PhotoListing listing = inBucket                                   ? DataSources::s3Photos(spec_, DataSources::s3Options(cfg_), bucket)
                                   : std::filesystem::is_directory(spec_, ec) ? PhotoListing::folder(spec_)
                                                                              : PhotoListing::archive(spec_);
            const bool tty = ::isatty(STDERR_FILENO) != 0;
            auto progress = [&](int64_t done, int64_t total) {
                if (!tty || total == 0) return;
                constexpr int kWidth = 30;
                const int filled = static_cast<int>(done * kWidth / total);
                std::fprintf(stderr, "\r\033[Kchecking [%s%s] %lld/%lld images", std::string(static_cast<size_t>(filled), '#').c_str(),
                             std::string(static_cast<size_t>(kWidth - filled), '.').c_str(), static_cast<long long>(done), static_cast<long long>(total));
                std::fflush(stderr);
            };
            gCancel = false;
            std::signal(SIGINT, onSignal);
            std::signal(SIGTERM, onSignal);
            const PhotoListing::CheckSummary check = listing.check(o, !noDecode_, 0, progress, &gCancel);
            if (tty && check.decoded > 0) std::fprintf(stderr, "\r\033[K");
            if (gCancel) {
                std::cerr << "streetgan-trainer: data stats interrupted after checking " << check.decoded
                          << " images (their verdicts are kept): run the same command again to go on\n";
                return static_cast<int>(ExitCode::Interrupted);
            }
            stats = listing.index(o).stats();
            stats["check"] = {{"decode", check.decode}, {"decoded", check.decoded}, {"cached", check.cached}, {"unchecked", check.unchecked}};
#endif
        }
    }
    if (json_)
        std::cout << stats.dump() << "\n";
    else
        std::cout << (spec_ == "synthetic" ? stats.dump(2) + "\n" : DatasetIndex::formatStatsTable(stats));
    return 0;
}

}  // namespace streetgan
