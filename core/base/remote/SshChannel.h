// One exec channel of an SshSession: a remote command with its stdin, stdout and stderr.
//
// Thread contract: like its session, a channel is used by one thread at a time, and only while
// no other thread uses the same session. The session must outlive the channel.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/util/ExecResult.h"  // what SshSession::exec returns

struct ssh_session_struct;
struct ssh_channel_struct;

namespace streetgan {

class SshChannel {
public:
    /// Runs `command` (a shell command line: quote arguments with ShellQuote) on `session`.
    /// `label` names the host in errors. Throws ConnectionLostError / RemoteError.
    SshChannel(ssh_session_struct* session, std::string label, const std::string& command);
    ~SshChannel();
    SshChannel(const SshChannel&) = delete;
    SshChannel& operator=(const SshChannel&) = delete;

    /// Appends stdout bytes to `out`, waiting up to `timeoutMs` for the first; stderr bytes that
    /// arrived meanwhile go to the stderr buffer. Returns the bytes appended (0: nothing yet or
    /// end of output: see atEof). Throws ConnectionLostError when the connection dropped.
    size_t read(std::string& out, int timeoutMs);
    /// True once the remote side closed its stdout (the command ended or closed it).
    bool atEof() const;
    /// Stderr collected so far (bounded to its last 64 KiB).
    const std::string& stderrText() const { return stderr_; }
    /// Writes to the command's stdin (blocking until sent). Throws ConnectionLostError, or
    /// RemoteError when the command ended before taking it all.
    void write(const std::string& data);
    /// As write(), but false where the command ended before reading all of it (it closed its side
    /// of the channel: a check that failed first, `exit 3`; or exitStatus() already returned its
    /// status) while the connection stands: its output and exit status then say why. Throws
    /// ConnectionLostError when the connection is gone.
    bool writeUnlessEnded(const std::string& data);
    /// Closes the command's stdin.
    void sendEof();
    /// The command's exit status once it ended (waits up to `timeoutMs` for it); nullopt when
    /// the server sent none (killed by a signal, connection gone).
    std::optional<int> exitStatus(int timeoutMs = 5000);
    /// Closes the channel (idempotent; the destructor does it too).
    void close();

private:
    void drainStderr();
    [[noreturn]] void lost(const char* what);

    ssh_session_struct* session_;
    ssh_channel_struct* channel_ = nullptr;
    std::string label_;
    std::string stderr_;
    // The status once exitStatus() read it. The server sends the channel's close after the
    // status, so a write in between would otherwise "succeed" into a command that has ended.
    std::optional<int> exitStatus_;
};

}  // namespace streetgan
