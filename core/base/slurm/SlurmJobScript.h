// The batch script of a run submitted to Slurm: RUN/job.sbatch, written before sbatch runs so
// that a user can read it and resubmit it as it is (`sbatch RUN/job.sbatch`). Its #SBATCH lines
// ask for the nodes, tasks, GPUs, time and partition of a SlurmJobSpec, a SIGUSR1 warning before
// the time limit, requeueing and an appended RUN/slurm-%j.out; its one command is
// `srun --kill-on-bad-exit=1 <the trainer ...>`, one task per rank. Every line carries a comment
// saying what it is for (docs/slurm.md shows one). The script exports nothing but OMP_NUM_THREADS:
// no secret of the submitting process is written into it.
//
// Thread contract: stateless; text() is a pure function of the spec.
#pragma once

#include <string>

#include "base/slurm/SlurmJobSpec.h"

namespace streetgan {

class SlurmJobScript {
public:
    /// The file's name in the run directory.
    static constexpr const char* kFileName = "job.sbatch";
    /// The script of `spec` (validated first: ConfigError naming a bad value).
    static std::string text(const SlurmJobSpec& spec);
    /// `value` as an #SBATCH line's argument: as is when it has no blank, else in double quotes
    /// (sbatch's own quoting; SlurmJobSpec::validate() refuses what it cannot carry).
    static std::string sbatchWord(const std::string& value);
};

}  // namespace streetgan
