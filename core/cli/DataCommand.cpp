#include "cli/DataCommand.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "data/DataSources.h"
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
    return data;
}

int DataCommand::execute() {
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
