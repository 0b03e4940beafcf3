#pragma once

#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// export --checkpoint CK --format state-dict --out FILE: G and D state dicts (reference key
/// names) plus fixed noise and epoch, in a file Python's torch.load reads.
class ExportCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string checkpoint_, format_ = "state-dict", out_;
};

}  // namespace streetgan
