// `streetgan-trainer ls`: the runs under a folder, as a list (RunStatus) or as the Runs table
// (RunRecordReader), in text or JSON. Runs on the main thread of the CLI; static helpers are
// plain functions of their arguments.
#pragma once

#include <string>
#include <vector>

#include "base/follow/RunRecord.h"
#include "base/follow/RunStatus.h"

#include "trainer/Command.h"

namespace streetgan {

/// ls ROOT [--json]: every run under ROOT with its state, step, last losses and checkpoint. A run
/// submitted to Slurm (RUN/slurm.json) shows Slurm's state, job id and reason (SlurmRunStates:
/// one squeue call for the whole listing, on this computer).
/// ls ROOT --table [--columns a,b,c] [--json]: the Runs table (RunRecordReader): one row per run
/// with its cost, the settings that differ between the runs and its outcomes; with --json every
/// run's whole record ({"runs":[RunRecord::toJson()...]}, what the app reads from a remote host).
class LsCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;
    /// Prints `runs` as `ls` does (`root` names the folder when there are none).
    static void print(const std::vector<RunInfo>& runs, const std::string& root, bool json);
    /// The columns `ls --table` shows by default: name, state, (job, reason: when a run was
    /// submitted to Slurm), host, step, images, wall, img_per_s,
    /// the settings whose values differ between the `runs` that have them, loss_d, loss_g, the quality figures any run
    /// has (swd.min, fid.min, kid.min, precision.max, recall.max) and best.
    static std::vector<std::string> defaultColumns(const std::vector<RunRecord>& runs);
    /// Prints `runs` as the table of `columns` (ConfigError naming a column none of the runs has).
    static void printTable(const std::vector<RunRecord>& runs, const std::vector<std::string>& columns);

private:
    std::string root_;
    bool json_ = false;
    bool table_ = false;
    std::vector<std::string> columns_;
};

}  // namespace streetgan
