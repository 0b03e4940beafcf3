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
///
/// launch --detach [--log FILE] ...: the same launch as a daemon of its own session (one node of
/// a run across several hosts, MultiHostRunLauncher; docs/distributed.md "Running across several
/// hosts"). It checks the options, re-executes itself without --detach after setsid (stdin
/// /dev/null, stdout and stderr to the log: default RUN/launch-node<R>.log for `train`), and
/// prints one JSON line {"pid","log","master","run_dir"} once the daemon runs: pid is also the
/// process group of the launch and its ranks (what stops stragglers). On node 0 `--master
/// ADDR:0` picks a free port here (the line's master says which).
/// Why a detached launch and not `start --detach` as a rank: start's daemon is one `train`
/// process whose readiness pipe says "training"; a node has nproc ranks, and none of them trains
/// before every node has started, so readiness belongs to whoever started every node.
class LaunchCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    /// --detach: forks the daemon and prints its line; returns the exit code.
    int detach();

    bool detach_ = false;
    std::string log_;
    int nproc_ = 1, nnodes_ = 1, nodeRank_ = 0;
    std::string master_;
    double grace_ = 10;
    std::vector<std::string> command_;
};

}  // namespace streetgan
