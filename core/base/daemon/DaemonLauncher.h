// `start --detach`: runs the trainer as a daemon in a run directory and waits until it is
// training. The resolved config goes to RUN/start-config.json; the trainer re-executes itself
// (/proc/self/exe) as `train --run-dir RUN --config RUN/start-config.json [--resume]
// --daemon-fd N` after a double fork and setsid, so it survives the caller and SSH hang-ups;
// stdin is /dev/null and stdout/stderr go to RUN/trainer.log. See docs/attach-protocol.md.
#pragma once

#include <chrono>
#include <string>

#include "base/run/TrainConfig.h"

namespace streetgan {

class DaemonLauncher {
public:
    struct Result {
        std::string runDir;  ///< absolute
        bool ready = false;  ///< false: still starting when the wait ended (see RUN/trainer.log)
    };
    /// Throws the error kind of the daemon's own failure (ConfigError, DataError, ...) with its
    /// message when it fails before training, and IoError when the run already has a trainer.
    static Result launch(const TrainConfig& cfg, const std::string& runDir, bool resume, std::chrono::seconds wait);
};

}  // namespace streetgan
