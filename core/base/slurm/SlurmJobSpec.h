// What a run asks of Slurm: nodes, tasks and GPUs per node, CPUs per task, time limit, partition,
// account, extra #SBATCH lines, the warning signal's lead time, and the command every rank runs.
// SlurmJobScript writes it as RUN/job.sbatch; SlurmJobRecord keeps its figures in RUN/slurm.json.
// validate() is the one check of every value (the CLI and the app both call it through
// SlurmSubmission), and Slurm's time-limit formats are read and written here only.
//
// Thread contract: a plain value; the static functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streetgan {

struct SlurmJobSpec {
    /// The run directory, absolute, on the file system the login node and every compute node
    /// share: the job's output (slurm-%j.out), events and checkpoints land there.
    std::string runDir;
    std::string jobName;  ///< #SBATCH --job-name; empty: the run folder's name
    int nodes = 1;
    int tasksPerNode = 1;  ///< ranks per node (one srun task each)
    int gpusPerNode = 0;   ///< 0: no --gpus-per-node line (a CPU job)
    int cpusPerTask = 0;   ///< 0: Slurm's default (one CPU per task)
    /// Empty: the partition's default limit. Any of Slurm's forms (MM, MM:SS, HH:MM:SS, D-HH,
    /// D-HH:MM, D-HH:MM:SS); written normalised as HH:MM:SS (timeLimitText()).
    std::string timeLimit;
    std::string partition, account;  ///< empty: Slurm's defaults
    /// Extra #SBATCH options, one per entry, e.g. "--mem=16G" or "#SBATCH --qos=long".
    std::vector<std::string> extraLines;
    /// Seconds before the time limit at which Slurm sends SIGUSR1 to the ranks (the trainer
    /// checkpoints and requeues the job on it).
    int signalSeconds = 120;
    /// The job's working folder (#SBATCH --chdir); empty: the folder sbatch runs in.
    std::string workDir;
    /// What srun starts on every rank: the trainer and its arguments, one word each.
    std::vector<std::string> command;

    static constexpr int kDefaultSignalSeconds = 120;

    /// Throws ConfigError naming the first bad value and what to do: counts out of range, a time
    /// limit Slurm would not read or not longer than the signal's lead, partition or account names
    /// with characters Slurm does not allow, an extra line that is not one option, a run
    /// directory that is not absolute or that #SBATCH lines cannot carry, an empty command.
    void validate() const;
    /// The time limit as HH:MM:SS (hours may pass 24), "" when none.
    std::string timeLimitText() const;
    /// The extra line as it follows "#SBATCH " (a leading "#SBATCH" and blanks removed).
    static std::string extraOption(const std::string& line);

    /// Seconds of one of Slurm's time-limit forms; throws ConfigError naming `text` otherwise.
    /// "UNLIMITED"/"INFINITE" are refused: give the job a limit, or none to take the partition's.
    static int64_t parseTimeLimit(const std::string& text);
    /// HH:MM:SS of `seconds`, exact (Slurm itself rounds a limit up to whole minutes).
    static std::string formatTimeLimit(int64_t seconds);
};

}  // namespace streetgan
