#include "cli/DataCommand.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "data/DataSources.h"
#include "data/SyntheticStreets.h"
#include "util/AtomicFile.h"
#include "data/DatasetIndex.h"
#include "util/Errors.h"

namespace streetgan {

CLI::App* DataCommand::setup(CLI::App& parent) {
    auto* data = parent.add_subcommand("data", "Inspect data sources");
    data->require_subcommand(1);
    stats_ = data->add_subcommand("stats", "Images, skipped files by reason, cities and sequences of a data source");
    stats_->add_option("spec", spec_, "synthetic or a folder of photos")->required();
    stats_->add_option("--cities", cfg_.cities, "Keep only these cities")->delimiter(',');
    stats_->add_option("--exclude-cities", cfg_.excludeCities, "Drop these cities")->delimiter(',');
    stats_->add_option("--max-per-sequence", cfg_.maxPerSequence, "Cap of training images per sequence")->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
    stats_->add_option("--validation-percent", cfg_.validationPercent, "Held-out share by key hash")->check(CLI::Range(0.0, 99.0));
    stats_->add_flag("--json", json_, "One JSON document on stdout");
    synth_ = data->add_subcommand("synth", "Write synthetic street scenes as JPEG files (MSLS-like 640x480 by default)");
    synth_->add_option("--count", count_, "Scenes")->check(CLI::Range(int64_t{1}, int64_t{10000000}));
    synth_->add_option("--out", out_, "Output folder (scenes go to OUT/synthetic/<index>.jpg)")->required();
    synth_->add_option("--width", width_, "Width in pixels")->check(CLI::Range(16, 2048));
    synth_->add_option("--height", height_, "Height in pixels")->check(CLI::Range(16, 2048));
    synth_->add_option("--quality", quality_, "JPEG quality")->check(CLI::Range(1, 100));
    synth_->add_option("--seed", seed_, "Seed of the scenes");
    return data;
}

int DataCommand::execute() { return synth_->parsed() ? synth() : stats(); }

int DataCommand::synth() {
    const std::string dir = out_ + "/synthetic";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw IoError("cannot create '" + dir + "': " + ec.message());
    SyntheticStreets streets(seed_);
    std::vector<uint8_t> rgb;
    for (int64_t i = 0; i < count_; ++i) {
        rgb = streets.render(static_cast<uint64_t>(i), width_, height_);
        cv::Mat img(height_, width_, CV_8UC3, rgb.data()), bgr;
        cv::cvtColor(img, bgr, cv::COLOR_RGB2BGR);
        std::vector<uchar> jpg;
        cv::imencode(".jpg", bgr, jpg, {cv::IMWRITE_JPEG_QUALITY, quality_});
        AtomicFile::write(dir + "/" + std::to_string(i) + ".jpg", jpg.data(), jpg.size());
    }
    std::cout << dir << "\n";
    return 0;
}

int DataCommand::stats() {
    nlohmann::json stats;
    if (spec_ == "synthetic") {
        stats = {{"images", cfg_.syntheticImages}, {"skipped", 0}, {"skipped_reasons", nlohmann::json::object()},
                 {"cities", {{"synthetic", cfg_.syntheticImages}}}, {"sequences", 0}};
    } else {
        std::error_code ec;
        if (!std::filesystem::is_directory(spec_, ec)) throw DataError("data source '" + spec_ + "' is not a folder: give a folder of images or 'synthetic'");
        IndexOptions o = DataSources::indexOptions(cfg_);
        o.split = IndexOptions::Split::All;  // stats describe the whole selection; "split" says how it divides
        stats = DatasetIndex::scanFolder(spec_, o).stats();
    }
    if (json_) std::cout << stats.dump() << "\n";
    else std::cout << (spec_ == "synthetic" ? stats.dump(2) + "\n" : DatasetIndex::formatStatsTable(stats));
    return 0;
}

}  // namespace streetgan
