// The one place the trainer's command lines are built for running a run somewhere: `start
// --detach` with the train options (this computer, an SSH host), `control RUN stop`, `ls RUN
// --json` (a run's state where only a shell reaches the run), and the `train --run-dir RUN
// --resume` line a Slurm job script runs on every rank, and `launch --detach` of one node of a
// run across several hosts (with the reader of the line it prints). Each comes as words (for exec) and, through
// shellLine(), as one quoted line for a CommandShell.
//
// Thread contract: a plain value; const members are safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace streetgan {

class TrainerCommandLine {
public:
    /// `trainer`: the program as the target runs it, a path or a name found on its PATH.
    explicit TrainerCommandLine(std::string trainer = "streetgan-trainer");
    const std::string& trainer() const { return trainer_; }

    /// TRAINER start --detach TRAIN-ARGS (`--run-dir RUN` among them). A --detach already in the
    /// args is not repeated. `start` prints the run directory, absolute, on its last line.
    std::vector<std::string> start(const std::vector<std::string>& trainArgs) const;
    /// TRAINER control RUN COMMAND [VALUE] (pause, resume, stop, checkpoint-now, ...).
    std::vector<std::string> control(const std::string& runDir, const std::string& command, const std::string& value = {}) const;
    /// TRAINER control RUN stop: the run stops at its next step, checkpointing first.
    std::vector<std::string> stop(const std::string& runDir) const { return control(runDir, "stop"); }
    /// TRAINER ls RUN --json: {"runs":[the run]} as RunStatus::read sees it on the target.
    std::vector<std::string> status(const std::string& runDir) const;
    /// TRAINER train --run-dir RUN --resume TRAIN-ARGS: what srun starts on every rank of a Slurm
    /// job. The same line starts the job and every requeue (train --resume starts fresh under
    /// Slurm when RUN has no checkpoint yet), so a --run-dir, --resume or `start`'s own --detach
    /// and --wait in `trainArgs` are replaced by this line's, not repeated.
    std::vector<std::string> slurmTrain(const std::string& runDir, const std::vector<std::string>& trainArgs) const;

    /// TRAINER launch --detach --nproc N --nnodes M --node-rank R --master ADDR:PORT -- train
    /// TRAIN-ARGS: node R of a run across several hosts (MultiHostRunLauncher); PORT 0 on node 0
    /// picks a free port there. `start`'s own --detach and --wait in `trainArgs` are dropped.
    std::vector<std::string> launchNode(int nproc, int nnodes, int nodeRank, const std::string& master, const std::vector<std::string>& trainArgs) const;
    /// What `launch --detach` printed on its last line: {"pid","log","master","node_rank","run_dir"}.
    struct DetachedLaunch {
        long pid = 0;        ///< the daemon, and the process group of it and its ranks
        std::string log;     ///< absolute, on that host
        std::string master;  ///< ADDR:PORT every node meets at
        std::string runDir;  ///< absolute, on that host ("" for a command without a run folder)
    };
    /// nullopt when the output's last line is no such JSON object (a trainer without launch --detach).
    static std::optional<DetachedLaunch> detachedLaunch(const std::string& launchOutput);

    /// The words as one line for `sh -c` (ShellQuote::join: each word stays one word).
    static std::string shellLine(const std::vector<std::string>& words);
    /// The run directory `start` printed: its last non-empty line, trimmed ("" when none).
    static std::string startedRunDir(const std::string& startOutput);

private:
    std::string trainer_;
};

}  // namespace streetgan
