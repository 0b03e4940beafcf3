// Slurm's warning before a job's time limit (SIGUSR1, `sbatch --signal=USR1@S`) as the Trainer
// sees it: `signal` is set (together with the run's stop flag) by the signal handler; the ranks
// then stop at the same step as on SIGTERM (the per-step agreement carries it, so one rank that
// got the signal is enough), rank 0 writes the checkpoint of that step, calls `requeue` (the
// trainer's `scontrol requeue $SLURM_JOB_ID`), and only then writes the status "requeued" with
// the reason "time limit". A `requeue` that throws fails the run as any error does, so a run
// whose job was not requeued never says "requeued".
//
// Thread contract: `signal` may be set from any thread or a signal handler; `requeue` runs on the
// training thread of rank 0.
#pragma once

#include <atomic>
#include <functional>

namespace streetgan {

struct RequeueSignal {
    const std::atomic<bool>* signal = nullptr;  ///< nullptr: no requeue (not a Slurm job)
    std::function<void()> requeue;              ///< rank 0's; may be empty (a test's)
    static constexpr const char* kReason = "time limit";
};

}  // namespace streetgan
