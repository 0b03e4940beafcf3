// Runs on this computer: the trainer's `start --detach` and `control RUN stop` through a
// LocalShell (TrainerCommandLine builds them); a run's state read here directly (RunStatus: its
// events and whether a live trainer holds its lock), with no process started for it.
//
// Thread contract: RunLauncher's: one thread at a time, never the GUI thread (start() waits until
// the daemon trains, or fails, which may take seconds).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/launch/ShellRunLauncher.h"

namespace streetgan {

class LocalRunLauncher : public ShellRunLauncher {
public:
    /// `trainer`: the program to run (a path, or a name looked up on PATH). `environment`: set on
    /// top of ours for the trainer (LocalShell).
    explicit LocalRunLauncher(const std::string& trainer, std::vector<std::pair<std::string, std::string>> environment = {});
    /// RunStatus::read of `runDir`; LaunchError when it is no run folder.
    State state(const std::string& runDir) override;
};

}  // namespace streetgan
