// Runs on one SSH host: the trainer's `start --detach`, `ls RUN --json` (the run's state as
// RunStatus reads it there: lock-based) and `control RUN stop` through an SshShell on a session
// the caller keeps (RemoteHostWorker's, reused across requests). Relative paths start at the
// remote $HOME.
//
// Thread contract: the session's: one thread at a time, no other use of the session meanwhile;
// the session outlives the launcher. ConnectionLostError passes through (the caller reconnects).
#pragma once

#include <string>

#include "base/launch/ShellRunLauncher.h"

namespace streetgan {

class SshSession;

class SshRunLauncher : public ShellRunLauncher {
public:
    /// `trainer`: the program on the host (a path, or a name on its PATH).
    SshRunLauncher(SshSession& session, const std::string& trainer);
};

}  // namespace streetgan
