// Fuzz target: a run's run.json through RunDirectory::readRunJson and its "config" object through
// TrainConfig::merge and validate, as `streetgan-trainer train --resume` does (the same merge
// reads --config FILE). ConfigError / IoError are the correct outcomes for bad input.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "FuzzSupport.h"
#include "base/model/Presets.h"
#include "base/run/RunDirectory.h"
#include "base/run/TrainConfig.h"
#include "base/util/Errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    streetgan::fuzz::writeScratch("run.json", data, size);
    try {
        const streetgan::RunDirectory dir(streetgan::fuzz::scratchDir(), /*create=*/false);
        const nlohmann::json run = dir.readRunJson();
        streetgan::TrainConfig cfg;
        cfg.model = streetgan::Presets::get("naive-64");
        cfg.model.preset = "naive-64";
        if (run.contains("config")) cfg.merge(run.at("config"));
        cfg.validate();
        (void)cfg.toJson().dump();
        (void)cfg.totalSteps(100);
    } catch (const streetgan::Error&) {}
    return 0;
}
