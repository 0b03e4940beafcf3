#pragma once

#include <string>
#include <vector>

#include "trainer/Command.h"

namespace streetgan {

/// launch --nproc N [--nnodes M --node-rank R --master ADDR:PORT] [--grace S] -- train ...:
/// starts N ranks of this trainer on this node with torchrun's environment (dist/RankLauncher),
/// relays their stderr with "[rank N]" prefixes, forwards SIGINT/SIGTERM (the ranks stop together
/// after rank 0's final checkpoint) and, when one rank fails, stops the others and exits with
/// that rank's code and one line naming it. Without --master, node 0 of a single-node run listens
/// on a free port of 127.0.0.1. Runs on the calling thread until every rank has exited.
class LaunchCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    int nproc_ = 1, nnodes_ = 1, nodeRank_ = 0;
    std::string master_;
    double grace_ = 10;
    std::vector<std::string> command_;
};

}  // namespace streetgan
