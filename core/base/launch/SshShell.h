// A CommandShell on a host over SSH: each run() is one exec channel of an SshSession running
// `sh -c 'cd 2>/dev/null; COMMAND'`. sh, whatever the login shell is (fish, tcsh); `cd` first,
// so that relative paths start at $HOME as they do for LocalShell (sshd's login folder is the
// passwd entry's home, which a test sshd's SetEnv HOME differs from).
//
// Thread contract: the session's: one thread at a time, and no other thread uses the session
// meanwhile. The session must outlive the shell.
#pragma once

#include "base/launch/CommandShell.h"

namespace streetgan {

class SshSession;

class SshShell : public CommandShell {
public:
    explicit SshShell(SshSession& session) : session_(session) {}
    /// Throws ConnectionLostError when the connection drops, RemoteError when the host refuses
    /// the channel. An exit status 127 with nothing on stdout is the remote shell's "not found".
    ExecResult run(const std::string& command, const std::string& stdinData = {}) override;
    /// The session's "user@host:port".
    std::string label() const override;
    /// The `sh -c` command line run() sends for `command` (one place for that prefix; the
    /// streaming callers that open a channel themselves use it too).
    static std::string wrap(const std::string& command);

private:
    SshSession& session_;
};

}  // namespace streetgan
