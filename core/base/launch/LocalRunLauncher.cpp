#include "base/launch/LocalRunLauncher.h"

#include "base/follow/RunStatus.h"
#include "base/launch/LocalShell.h"

namespace streetgan {

LocalRunLauncher::LocalRunLauncher(const std::string& trainer, std::vector<std::pair<std::string, std::string>> environment)
    : ShellRunLauncher(std::make_unique<LocalShell>(std::move(environment)), TrainerCommandLine(trainer)) {}

RunLauncher::State LocalRunLauncher::state(const std::string& runDir) {
    if (!RunStatus::isRunDirectory(runDir))
        throw LaunchError(runDir + " on " + label() + " is no run folder (no run.json, events or slurm.json in it); check the path", {}, false);
    return stateOf(RunStatus::read(runDir));
}

}  // namespace streetgan
