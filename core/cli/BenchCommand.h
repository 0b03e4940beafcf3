#pragma once

#include <cstdint>
#include <string>

#include "cli/Command.h"

namespace streetgan {

/// bench train --preset P --batch B --threads T --steps N [--warmup W] [--json]: images/s of the
/// reference training step on a fixed batch with fresh noise each step (bench/ compares it with
/// PyTorch Python). Timing is measured, never asserted.
class BenchCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    CLI::App* train_ = nullptr;
    std::string preset_ = "naive-64", device_ = "cpu", amp_ = "off";
    int64_t batch_ = 128, steps_ = 10, warmup_ = 2;
    int threads_ = 0;
    bool json_ = false;
    bool channelsLast_ = true;
};

}  // namespace streetgan
