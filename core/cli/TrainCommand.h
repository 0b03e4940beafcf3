#pragma once

#include <string>

#include "cli/Command.h"
#include "train/TrainConfig.h"

namespace streetgan {

/// train --run-dir DIR [...]: a run in the foreground. Precedence of settings: defaults, then the
/// run's own run.json (with --resume), then --config FILE, then flags given on the command line.
/// SIGINT/SIGTERM stop after a checkpoint.
class TrainCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    CLI::App* app_ = nullptr;
    std::string runDir_, preset_, configFile_;
    bool resume_ = false;
    TrainConfig flags_;  // holds the flag values; only options actually given are applied
};

}  // namespace streetgan
