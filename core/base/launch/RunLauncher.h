// Where a run executes: one interface for starting a run, asking its state and stopping it,
// whatever the target. Implementations: LocalRunLauncher (this computer) and SshRunLauncher (one
// SSH host); both run the trainer's `start --detach` (TrainerCommandLine) through a CommandShell,
// and a run is alive while its trainer holds the run lock (RunStatus). A Slurm cluster (a
// SlurmRunLauncher over the login node's shell: sbatch of the job script, `queued` with Slurm's
// reason, scancel) and several SSH hosts started as one rank group (MultiHostRunLauncher: a
// detached `launch` per host) are further implementations of this same interface: their start()
// returns the one run directory, their state() the run's state as one, their stop() stops every
// rank.
//
// Thread contract: a launcher is used by one thread at a time (a worker thread: every call may
// block on a process or the network); label() may be called from any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace streetgan {

class RunLauncher {
public:
    /// A run's state as its target sees it.
    struct State {
        /// RunInfo::state (running, paused, finished, stopped, failed, crashed, new), or
        /// "queued" while a scheduler holds the run back.
        std::string state;
        /// Why it waits (a scheduler's reason: Priority, Resources) or how it ended (the last
        /// error); "" when there is nothing to say.
        std::string reason;
        /// The exit code a scheduler recorded for a finished job; nullopt when none is known.
        std::optional<int> exitCode;
    };

    virtual ~RunLauncher() = default;
    /// The target's name for lists and messages: "this computer", "user@host:port"...
    virtual std::string label() const = 0;
    /// Starts a run with the trainer's train options (`--run-dir RUN` among them) and returns its
    /// run directory as the target names it (absolute). Returns once the run is under way (or
    /// queued). Throws LaunchError (the target refused: one line naming it and what to do), or
    /// RemoteError when the target could not be reached.
    virtual std::string start(const std::vector<std::string>& trainArgs) = 0;
    /// The state of the run in `runDir`. Throws LaunchError when it is no run there.
    virtual State state(const std::string& runDir) = 0;
    /// Asks the run to stop (it checkpoints first); returns once the request was delivered.
    /// Throws LaunchError when the run is not alive or refuses.
    virtual void stop(const std::string& runDir) = 0;
};

}  // namespace streetgan
