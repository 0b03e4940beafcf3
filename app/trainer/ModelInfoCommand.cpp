#include "trainer/ModelInfoCommand.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/model/Presets.h"
#include "ml/model/Discriminator.h"
#include "ml/model/Generator.h"
#include "ml/model/WeightInit.h"

namespace streetgan {

CLI::App* ModelInfoCommand::setup(CLI::App& parent) {
    auto* sub = parent.add_subcommand("model-info", "Show a preset's architecture and trainable parameter counts");
    sub->add_option("--preset", preset_, "Preset: tiny-32, naive-64, safe-64, safe-128, msls-128")->required();
    sub->add_flag("--json", json_, "One JSON document on stdout");
    return sub;
}

int ModelInfoCommand::execute() {
    const ModelConfig cfg = Presets::get(preset_);
    Generator g(cfg);
    Discriminator d(cfg);
    const int64_t gp = WeightInit::trainableParameters(*g), dp = WeightInit::trainableParameters(*d);
    if (json_) {
        std::cout << nlohmann::json{{"preset", cfg.preset},    {"nz", cfg.nz},   {"ngf", cfg.ngf}, {"ndf", cfg.ndf}, {"nc", cfg.nc},
                                    {"img_size", cfg.imgSize}, {"g_params", gp}, {"d_params", dp}}
                         .dump()
                  << "\n";
    } else {
        std::cout << "preset     " << cfg.preset << "\nimage      " << cfg.imgSize << "x" << cfg.imgSize << "x" << cfg.nc << "\nnz         " << cfg.nz
                  << "\nngf        " << cfg.ngf << "\nndf        " << cfg.ndf << "\nG params   " << gp << "\nD params   " << dp << "\n";
    }
    return 0;
}

}  // namespace streetgan
