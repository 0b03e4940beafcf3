// --generator ema|raw, the same option on every command that draws from a checkpoint (sample,
// render, serve, eval, export, explore-worker); ModelLoader::parseChoice reads its value.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace streetgan {

inline CLI::Option* addGeneratorOption(CLI::App* app, std::string& value) {
    return app
        ->add_option("--generator", value,
                     "Which generator to draw from: ema (the averaged G_ema, the default where the checkpoint has one) or raw (the trained G)")
        ->check(CLI::IsMember({"ema", "raw"}));
}

}  // namespace streetgan
