#pragma once

#include <cstdint>
#include <string>

#include "cli/Command.h"

namespace streetgan {

/// eval --checkpoint CK --data SPEC [--samples N] [--json]: the reference's Parzen-window
/// log-likelihood of held-out real images (never seen in training) under generated samples.
class EvalCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string checkpoint_, data_ = "synthetic", device_ = "cpu";
    int64_t samples_ = 10000, validation_ = 1000, test_ = 1000;
    uint64_t seed_ = 0;
    int batch_ = 100;
    bool json_ = false;
};

}  // namespace streetgan
