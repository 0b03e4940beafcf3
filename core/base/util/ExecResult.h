// What running one command to its end gives back: its exit status and everything it wrote to
// stdout and stderr. SshSession::exec and every CommandShell return it. In util, not launch/ or
// remote/: both use it, and launch/ (SshShell) builds on remote/, which may not include launch/ back.
//
// Thread contract: a plain value; copy it freely between threads.
#pragma once

#include <optional>
#include <string>

namespace streetgan {

struct ExecResult {
    std::optional<int> exitStatus;  ///< nullopt: no status (killed by a signal, see signal)
    std::string out, err;
    /// The signal that ended the command when it is known (LocalShell); 0 otherwise. An SSH
    /// server does not say which signal it was, so over SSH this stays 0.
    int signal = 0;
    bool ok() const { return exitStatus && *exitStatus == 0; }
};

}  // namespace streetgan
