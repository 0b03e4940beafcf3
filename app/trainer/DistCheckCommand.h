#pragma once

#include <cstdint>
#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// dist-check: one rank of the check that a distributed step's averaged gradients equal those of
/// the whole batch in one process (ml/dist/DistCheck), run as `launch --nproc N -- dist-check` or
/// under torchrun; alone, it forms a group of one rank (the backend's check on one device). Prints
/// one JSON line per rank; exit 0 when within the tolerance.
class DistCheckCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string preset_ = "naive-64";
    int64_t batch_ = 8;
    uint64_t seed_ = 1;
    std::string device_ = "cpu";
    std::string backend_ = "auto";
    double tolerance_ = 0;  // 0: DistCheck::Result::tolerance for the device
    double timeout_ = 120;
    int threads_ = 1;
};

}  // namespace streetgan
