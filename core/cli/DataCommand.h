#pragma once

#include <string>

#include "cli/Command.h"
#include "train/TrainConfig.h"

namespace streetgan {

/// data stats SPEC [--json]: images, skipped (by reason), cities with counts and shares, sequences.
class DataCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    CLI::App* stats_ = nullptr;
    std::string spec_;
    bool json_ = false;
    TrainConfig cfg_;  // selection flags (cities, cap, split) share the train command's meaning
};

}  // namespace streetgan
