#include "base/slurm/SlurmJobScript.h"

#include <filesystem>

#include "base/remote/ShellQuote.h"
#include "base/util/Version.h"

namespace streetgan {

std::string SlurmJobScript::sbatchWord(const std::string& value) {
    return value.find_first_of(" \t") == std::string::npos && !value.empty() ? value : "\"" + value + "\"";
}

// sbatch reads #SBATCH lines up to the first command, so every comment sits on a line of its own
// before the option it explains (a comment after an option on its line is not read the same way
// by every Slurm version).
std::string SlurmJobScript::text(const SlurmJobSpec& spec) {
    spec.validate();
    const std::string jobName = spec.jobName.empty() ? std::filesystem::path(spec.runDir).filename().string() : spec.jobName;
    const int ranks = spec.nodes * spec.tasksPerNode;
    std::string s;
    const auto line = [&](const std::string& text) { s += text + "\n"; };
    const auto option = [&](const std::string& comment, const std::string& opt) {
        if (!comment.empty()) line("# " + comment);
        line("#SBATCH " + opt);
    };
    line("#!/bin/sh");
    line("# The Slurm job of the streetgan run in " + spec.runDir + ", written by streetgan-trainer " + Version::text() + " (docs/slurm.md).");
    line("# Resubmit it as it is with: sbatch " + ShellQuote::quote(spec.runDir + "/" + kFileName));
    line("# A requeued job runs this same script again: `train --resume` continues from the run's latest");
    line("# checkpoint, or starts the run when it has none yet.");
    option("The run's name in squeue.", "--job-name=" + sbatchWord(jobName));
    option("Nodes, and one task (rank) per slot on each: " + std::to_string(ranks) + (ranks == 1 ? " rank." : " ranks."),
           "--nodes=" + std::to_string(spec.nodes));
    option("", "--ntasks-per-node=" + std::to_string(spec.tasksPerNode));
    if (spec.gpusPerNode > 0) option("GPUs of each node; each rank takes the one of its local rank.", "--gpus-per-node=" + std::to_string(spec.gpusPerNode));
    if (spec.cpusPerTask > 0) option("CPUs of each rank (its data loading and OMP_NUM_THREADS below).", "--cpus-per-task=" + std::to_string(spec.cpusPerTask));
    if (!spec.timeLimit.empty())
        option("The wall-clock limit; the SIGUSR1 warning below comes before it (Slurm rounds it up to whole minutes).", "--time=" + spec.timeLimitText());
    if (!spec.partition.empty()) option("The partition (queue) the job waits in.", "--partition=" + spec.partition);
    if (!spec.account.empty()) option("The account the job is charged to.", "--account=" + spec.account);
    option("SIGUSR1 to every rank " + std::to_string(spec.signalSeconds) +
               " s before the limit: the trainer checkpoints, requeues this job (scontrol requeue) and exits 0.",
           "--signal=USR1@" + std::to_string(spec.signalSeconds));
    option("A requeued job (time limit, preemption, node failure) runs this script again.", "--requeue");
    option("Each start of the job appends to the output file of its job id, in the run directory.", "--open-mode=append");
    option("", "--output=" + sbatchWord(spec.runDir + "/slurm-%j.out"));
    if (!spec.workDir.empty()) option("The folder the trainer's relative paths (--data ...) are read from.", "--chdir=" + sbatchWord(spec.workDir));
    if (!spec.extraLines.empty()) {
        line("# Options given to submit with --sbatch-line.");
        for (const auto& extra : spec.extraLines) option("", SlurmJobSpec::extraOption(extra));
    }
    line("");
    line("# One thread pool per rank, as large as the CPUs Slurm gave it (more would oversubscribe the node).");
    line("export OMP_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-1}\"");
    line("# One task per rank: srun sets SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID and the node list, from");
    line("# which each rank finds its rank and rank 0's address. A rank that fails ends the others at once;");
    line("# the run then resumes from its last checkpoint.");
    // srun of Slurm 22.05 and later no longer reads SLURM_CPUS_PER_TASK: it is passed again here.
    std::string srun = "srun --kill-on-bad-exit=1";
    if (spec.cpusPerTask > 0) srun += " --cpus-per-task=" + std::to_string(spec.cpusPerTask);
    line(srun + " " + ShellQuote::join(spec.command));
    return s;
}

}  // namespace streetgan
