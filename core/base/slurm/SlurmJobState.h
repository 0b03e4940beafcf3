// A Slurm job's state in our words, from Slurm's (squeue's or sacct's) state, reason and exit
// code, and the state a run listing shows for a Slurm run given also what its trainer wrote: the
// two rules of docs/slurm.md, "States", in one place.
//
//   PENDING (+ reason: Priority, Resources, BeginTime...), CONFIGURING, *_HOLD -> queued (+ reason)
//   RUNNING, COMPLETING, STAGE_OUT, SIGNALING, RESIZING                      -> running
//   COMPLETED                                                                -> finished
//   FAILED (exit code), NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL                  -> failed (+ why)
//   CANCELLED, REVOKED                                                       -> cancelled
//   TIMEOUT, DEADLINE                                                        -> timed-out
//   REQUEUED, REQUEUE_FED -> requeued;  PREEMPTED -> preempted;  SUSPENDED, STOPPED -> suspended
//   anything else -> unknown (+ Slurm's word)
//
// Thread contract: a plain value; the functions are pure.
#pragma once

#include <optional>
#include <string>

namespace streetgan {

struct SlurmJobState {
    static constexpr const char* kQueued = "queued";
    static constexpr const char* kCancelled = "cancelled";
    static constexpr const char* kTimedOut = "timed-out";
    static constexpr const char* kRequeued = "requeued";
    static constexpr const char* kPreempted = "preempted";
    static constexpr const char* kSuspended = "suspended";
    static constexpr const char* kUnknown = "unknown";
    // running, finished and failed are RunState's words (base/run/Events.h).

    std::string jobId;
    std::string slurmState;  ///< Slurm's own word, e.g. "PENDING", "CANCELLED"
    std::string state;       ///< ours, as above
    /// queued: Slurm's reason ("Priority", "Resources", ...); failed: "exit code 3", "killed by
    /// signal 9", "node failure", "out of memory", or Slurm's reason when the job failed before it
    /// ran ("BadConstraints"); timed-out: "time limit" or "deadline"; else "".
    std::string reason;
    std::optional<int> exitCode;  ///< the batch script's exit code, when Slurm gives one
    int signal = 0;               ///< the signal that ended it, 0 when none

    /// From Slurm's words: `slurmState` as squeue --Format=State or sacct's State prints it
    /// ("CANCELLED by 1000" reads as CANCELLED), `reason` as printed ("None": none).
    static SlurmJobState fromSlurm(const std::string& jobId, const std::string& slurmState, const std::string& reason, std::optional<int> exitCode, int signal);
    /// True when the job has ended for good (finished, failed, cancelled, timed-out, preempted).
    bool ended() const;
    /// The state a run shows whose trainer's own state (RunStatus: running, paused, finished,
    /// stopped, failed, crashed, new, requeued) is `trainerState` while Slurm reports this: a
    /// queued or ended job is Slurm's word; a running job shows the trainer's state once it has
    /// one (paused, finished while the job ends...); a completed job that the trainer stopped is
    /// stopped. Slurm decides how a job ended, never a guess from the files.
    std::string combinedWith(const std::string& trainerState) const;
};

}  // namespace streetgan
