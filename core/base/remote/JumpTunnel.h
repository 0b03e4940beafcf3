// A TCP connection to host:port made by a jump host: a direct-tcpip channel opened on an
// authenticated jump session (ssh_channel_open_forward), bridged to one end of a socketpair. The
// other end is handed to the next session as its socket (SSH_OPTIONS_FD), so a jump host needs
// no ssh binary and no local port. A pump thread moves bytes both ways.
//
// Thread contract: after construction the pump thread is the only user of the jump session;
// nobody else may touch it until the tunnel is destroyed. The destructor stops and joins the
// pump (it also ends by itself when either side closes). Not copyable, not movable.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

struct ssh_session_struct;
struct ssh_channel_struct;

namespace streetgan {

class JumpTunnel {
public:
    /// Opens the channel from `jump` (connected and authenticated; must outlive the tunnel) to
    /// host:port as the jump host resolves it, and starts the pump. `jumpLabel` names the jump
    /// host in errors. Throws RemoteError when the jump host refuses the forward.
    JumpTunnel(ssh_session_struct* jump, const std::string& jumpLabel, const std::string& host, int port, int keepaliveSeconds);
    ~JumpTunnel();
    JumpTunnel(const JumpTunnel&) = delete;
    JumpTunnel& operator=(const JumpTunnel&) = delete;

    /// The socket for the next session (SSH_OPTIONS_FD). Ownership passes to the caller, which
    /// must close it (libssh does when that session is freed). Call once.
    int takeTargetFd();
    /// Bytes moved so far, jump host to local and local to jump host.
    uint64_t bytesIn() const { return bytesIn_.load(); }
    uint64_t bytesOut() const { return bytesOut_.load(); }
    /// Asks the pump to stop (thread-safe, idempotent); the destructor joins it.
    void stop();

private:
    void pump();

    ssh_session_struct* jump_;
    ssh_channel_struct* channel_ = nullptr;
    std::string label_;
    int keepaliveSeconds_;
    int local_ = -1;   // the pump's end of the socketpair
    int target_ = -1;  // the next session's end until taken
    int wake_[2] = {-1, -1};
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> bytesIn_{0}, bytesOut_{0};
    std::thread thread_;
};

}  // namespace streetgan
