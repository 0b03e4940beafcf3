// Submits a run to Slurm through a CommandShell on the login node (this computer, or the login
// node over SSH): creates the run directory, writes RUN/job.sbatch (SlurmJobScript), runs
// `sbatch --parsable` and records the job in RUN/slurm.json (SlurmJobRecord). The files are
// written by the shell (`cat > FILE.tmp && mv`), so the same code writes them on a remote
// cluster's file system. What srun runs on each rank (SlurmJobSpec::command) is the caller's:
// TrainerCommandLine::slurmTrain builds it.
//
// Failures are one line each and leave no run behind that looks alive: no sbatch on the host
// (ConfigError), Slurm refusing the job (ConfigError with Slurm's words and the value it names:
// partition, account...), an existing run directory (ConfigError), a folder that cannot be
// written (IoError). After a refusal the run directory made here is removed again; when
// slurm.json cannot be written after sbatch took the job, the job is cancelled.
//
// Thread contract: one thread at a time (the shell's rule); the static functions are pure.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/slurm/SlurmJobRecord.h"
#include "base/slurm/SlurmJobSpec.h"

namespace streetgan {

class CommandShell;

class SlurmSubmission {
public:
    /// `shell` must outlive the submission.
    explicit SlurmSubmission(CommandShell& shell);
    /// Submits `spec` (validated first; spec.runDir must not exist yet). Returns the record
    /// written to RUN/slurm.json. `now`: the submission's Unix time (recorded as "submitted").
    SlurmJobRecord submit(const SlurmJobSpec& spec, int64_t now);

    /// The job id and cluster of `sbatch --parsable`'s answer ("123" or "123;cluster"), nullopt
    /// when it is no job id.
    static std::optional<std::pair<std::string, std::string>> parseParsable(const std::string& out);
    /// The one line for sbatch refusing `spec`'s job on `host` (its stderr `err`): Slurm's reason,
    /// the value of ours it concerns, and where to look.
    static std::string refusal(const SlurmJobSpec& spec, const std::string& host, const std::string& err);

private:
    CommandShell& shell_;
};

}  // namespace streetgan
