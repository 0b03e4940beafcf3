#pragma once

#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// ls ROOT [--json]: every run under ROOT with its state, step, last losses and checkpoint.
class LsCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string root_;
    bool json_ = false;
};

}  // namespace streetgan
