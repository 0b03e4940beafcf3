// A run listing's Slurm runs (those with RUN/slurm.json) get their state from Slurm: every
// such run's job asked in ONE squeue call (SlurmQueue), then each run's state combined with its
// trainer's (SlurmJobState::combinedWith), and its job id and Slurm's reason set. `ls` uses it;
// any listing of local run folders can.
//
// Thread contract: one thread at a time per shell (the shell's rule); no state of its own.
#pragma once

#include <string>
#include <vector>

#include "base/follow/RunStatus.h"

namespace streetgan {

class CommandShell;

class SlurmRunStates {
public:
    /// Sets state, slurmJob and reason of each of `runs` that has RUN/slurm.json (read from the
    /// run's local path), asking Slurm through `shell` once. A run whose slurm.json cannot be
    /// read keeps its trainer's state and gets the file's one-line error as `reason`. When Slurm
    /// cannot be asked (no squeue, controller down), the runs keep their trainer's states and the
    /// one line saying why is returned; "" otherwise. Runs without slurm.json are left as they are.
    static std::string apply(const std::vector<RunInfo*>& runs, CommandShell& shell);
    /// The reason a run shows whose job Slurm no longer knows (it ended MinJobAge ago and the
    /// cluster keeps no accounting): what its trainer wrote is all there is.
    static std::string forgotten(const std::string& jobId);
};

}  // namespace streetgan
