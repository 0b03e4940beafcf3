// Where a command line runs: this computer (LocalShell) or a host over SSH (SshShell). The run
// launchers (RunLauncher) and the Slurm queue talk to a host only through this, so the same code
// drives a local cluster in the tests and a login node over SSH in use.
//
// Thread contract: an implementation is used by one thread at a time (an SshShell shares its
// session's rule: no other thread may use that session meanwhile).
#pragma once

#include <string>

#include "base/util/ExecResult.h"

namespace streetgan {

class CommandShell {
public:
    virtual ~CommandShell() = default;
    /// Runs `command` with sh -c (from the user's home folder), `stdinData` on stdin; blocks until it exits.
    virtual ExecResult run(const std::string& command, const std::string& stdinData = {}) = 0;
    virtual std::string label() const = 0;
};

}  // namespace streetgan
