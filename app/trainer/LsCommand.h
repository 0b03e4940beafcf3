#pragma once

#include <string>
#include <vector>

#include "base/follow/RunStatus.h"

#include "trainer/Command.h"

namespace streetgan {

/// ls ROOT [--json]: every run under ROOT with its state, step, last losses and checkpoint.
class LsCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;
    /// Prints `runs` as `ls` does (`root` names the folder when there are none).
    static void print(const std::vector<RunInfo>& runs, const std::string& root, bool json);

private:
    std::string root_;
    bool json_ = false;
};

}  // namespace streetgan
