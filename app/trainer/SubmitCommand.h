// `streetgan-trainer submit`: a training run as a Slurm job, from the cluster's login node
// (docs/slurm.md). Creates ROOT/NAME, writes its job.sbatch, runs `sbatch --parsable`, records
// the job in slurm.json (SlurmSubmission, through this computer's shell) and prints the run
// directory (or, with --json, the run directory and the record). Runs on the CLI's main thread;
// needs no LibTorch (the ranks run the full trainer through srun).
#pragma once

#include <string>
#include <vector>

#include "trainer/Command.h"

namespace streetgan {

/// submit --runs ROOT [--name N] --nodes N --tasks-per-node T [--gpus-per-node G]
///   [--cpus-per-task C] [--time HH:MM:SS] [--partition P] [--account A] [--sbatch-line '...']...
///   [--signal-seconds S] [--json] -- <train options>
/// Exit 0 submitted; 3 (ConfigError) refused: by Slurm (one line with its reason), no sbatch on
/// PATH, a bad value, an existing run; 5 (IoError) a folder that cannot be written.
class SubmitCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string root_, name_, time_, partition_, account_;
    int nodes_ = 1, tasksPerNode_ = 1, gpusPerNode_ = 0, cpusPerTask_ = 0, signalSeconds_ = 120;
    std::vector<std::string> sbatchLines_, trainOptions_;
    bool json_ = false;
};

}  // namespace streetgan
