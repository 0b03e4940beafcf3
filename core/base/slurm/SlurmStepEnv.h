// One task of an srun job step as a rank of a distributed run: Slurm's environment of the task
// read into what torchrun would have given (docs/distributed.md, "Under srun"):
//   rank             SLURM_PROCID
//   world size       SLURM_STEP_NUM_TASKS, else SLURM_NTASKS
//   local rank       SLURM_LOCALID
//   local world size SLURM_NTASKS_PER_NODE, else this node's entry (SLURM_NODEID) of
//                    SLURM_STEP_TASKS_PER_NODE / SLURM_TASKS_PER_NODE ("2(x3),1": 2,2,2,1)
//   master address   the first node of SLURM_STEP_NODELIST, else SLURM_JOB_NODELIST / SLURM_NODELIST
//   master port      the first of SLURM_STEP_RESV_PORTS (MpiParams=ports, srun --resv-ports=1), else
//                    20000 + job id % 20000 (derivedPort)
// A task is in a step when SLURM_STEP_ID is set and numeric (a batch script's own shell is not:
// there the trainer is one process). A malformed value is a ConfigError naming the variable.
//
// Thread contract: a plain value; fromEnvironment reads the process environment (no setenv
// meanwhile), from() only what its lookup returns.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace streetgan {

struct SlurmStepEnv {
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    int localWorldSize = 1;
    std::string masterAddr;
    int masterPort = 0;
    std::string jobId;
    std::string stepId;

    /// A variable's value, nullptr when unset.
    using Lookup = std::function<const char*(const char* name)>;
    /// The step's values when this process is a task of an srun step, nullopt otherwise.
    static std::optional<SlurmStepEnv> fromEnvironment();
    /// The same from `lookup` (the tests' environments).
    static std::optional<SlurmStepEnv> from(const Lookup& lookup);
    /// The rendezvous port of a job without reserved ports: 20000 + job id % 20000. Every task
    /// computes it alone, so all agree without talking (there is no one to ask before the
    /// rendezvous); two jobs on the same first node get different ports unless their ids are
    /// 20000 apart; most of the range (20000-32767) lies below the ports Linux picks for
    /// outgoing connections (32768-60999 by default). A port that is taken anyway fails the
    /// rendezvous with one line saying so; reserved ports (SLURM_STEP_RESV_PORTS) avoid it.
    static int derivedPort(unsigned long long jobId);
};

}  // namespace streetgan
