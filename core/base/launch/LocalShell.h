// A CommandShell on this computer: /bin/sh -c COMMAND as a child process, started in $HOME (as
// an SSH session starts in the login folder), stdin fed from the given bytes, stdout and stderr
// collected together (one poll loop over both pipes and stdin: a command that writes much to
// both, or reads late, never deadlocks).
//
// The command counts as ended when /bin/sh exits: output that a background process it left
// behind writes later (a daemon that kept the pipes) is not waited for. Everything else the
// parent process has open is closed in the child, so a detached daemon holds no descriptor of
// the caller.
//
// Thread contract: run() may be called from any thread, and from several at once (each call has
// its own child and pipes). SIGPIPE from a command that exits without reading its stdin is kept
// off the calling thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/launch/CommandShell.h"

namespace streetgan {

class LocalShell : public CommandShell {
public:
    /// `environment`: variables set (or replaced) in the command's environment on top of this
    /// process's own, e.g. SLURM_CONF for a test cluster.
    explicit LocalShell(std::vector<std::pair<std::string, std::string>> environment = {});
    /// Throws IoError when no child process can be made (out of processes or descriptors).
    ExecResult run(const std::string& command, const std::string& stdinData = {}) override;
    /// "this computer".
    std::string label() const override;

private:
    std::vector<std::pair<std::string, std::string>> environment_;
};

}  // namespace streetgan
