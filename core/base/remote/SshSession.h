// An authenticated SSH connection (libssh 0.10) to a host named like OpenSSH names it: options
// and ~/.ssh/config (SshConfig) resolve it, the host key is checked against known_hosts, auth
// tries agent, key files and password; ProxyJump hops are reached through JumpTunnels, each
// with its own host-key check and auth.
//
// Thread contract: one thread at a time uses a session and everything opened from it (channels,
// SftpClient); jump hops are driven by their own tunnel threads. Ownership: connect() returns
// the only owner; the destructor disconnects the target, then each jump hop, in reverse order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/remote/SshChannel.h"
#include "base/remote/SshOptions.h"

struct ssh_session_struct;

namespace streetgan {

class JumpTunnel;

/// One resolved hop (jump host or target), after config lookup.
struct SshHop {
    std::string alias;     ///< as given (Host pattern lookups use it)
    std::string hostName;  ///< what is connected to (HostName)
    int port = 22;
    std::string user;
    std::vector<std::string> identityFiles;  ///< expanded paths, in order
    std::string proxyCommand;                ///< ProxyCommand, tokens expanded; only the first hop uses it
    bool identitiesOnly = false;             ///< IdentitiesOnly: no agent keys when identityFiles is not empty
    /// "user@host" or "user@host:port": how errors name it.
    std::string label() const;
    /// The name known_hosts uses: host, or [host]:port when the port is not 22.
    std::string knownHostsName() const;
};

class SshSession {
public:
    /// Resolves `options` (see SshOptions) without connecting: the jump hops, then the target.
    static std::vector<SshHop> resolve(const SshOptions& options);
    /// Connects and authenticates every hop. Throws HostKeyError, AuthError, RemoteError
    /// (each naming the hop and what to do); callbacks of `options` run on this thread.
    static std::unique_ptr<SshSession> connect(const SshOptions& options);
    ~SshSession();
    SshSession(const SshSession&) = delete;
    SshSession& operator=(const SshSession&) = delete;

    const SshHop& target() const { return hops_.back(); }
    /// "user@host:port" of the target, for messages.
    std::string label() const { return hops_.back().label(); }
    /// True when the target is reached through at least one jump host.
    bool viaJump() const { return hops_.size() > 1; }
    /// Bytes the last jump tunnel moved to and from the target (0 without a jump host).
    uint64_t tunnelBytes() const;

    /// Runs `command` to completion: `stdinData` is written then stdin closed; output collected.
    /// Throws ConnectionLostError when the connection drops.
    ExecResult exec(const std::string& command, const std::string& stdinData = {});
    /// Starts `command` and returns its channel for streaming.
    std::unique_ptr<SshChannel> openExec(const std::string& command);
    /// Sends an SSH ignore message (keeps NATs and the TCP keepalive timer busy).
    void sendKeepalive();
    /// Shuts the target's socket down as a network failure would (tests, and callers that
    /// give up on a stalled connection). The session is unusable afterwards.
    void dropConnection();
    /// The libssh session of the target, for SftpClient and SshChannel.
    ssh_session_struct* handle() const { return sessions_.back(); }

private:
    SshSession() = default;
    std::vector<SshHop> hops_;
    std::vector<ssh_session_struct*> sessions_;         // one per hop, same order
    std::vector<int> fds_;                              // tunnel socket of each session (-1: own TCP)
    std::vector<std::unique_ptr<JumpTunnel>> tunnels_;  // tunnels_[i] runs on sessions_[i]
    int keepaliveSeconds_ = 0;
};

}  // namespace streetgan
