#pragma once

#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// model-info --preset NAME [--json]: architecture and exact trainable parameter counts.
class ModelInfoCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string preset_;
    bool json_ = false;
};

}  // namespace streetgan
