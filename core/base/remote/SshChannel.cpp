#include "base/remote/SshChannel.h"

#include <libssh/libssh.h>

#include <chrono>
#include <vector>

#include "base/remote/RemoteError.h"

namespace streetgan {

SshChannel::SshChannel(ssh_session_struct* session, std::string label, const std::string& command) : session_(session), label_(std::move(label)) {
    channel_ = ssh_channel_new(session_);
    if (!channel_) lost("open a channel");
    if (ssh_channel_open_session(channel_) != SSH_OK) {
        const bool connected = ssh_is_connected(session_);
        ssh_channel_free(channel_);
        channel_ = nullptr;
        if (!connected) lost("open a channel");
        throw RemoteError(label_ + " refused a session channel: " + ssh_get_error(session_) + "; check the server's MaxSessions");
    }
    if (ssh_channel_request_exec(channel_, command.c_str()) != SSH_OK) {
        const bool connected = ssh_is_connected(session_);
        ssh_channel_close(channel_);
        ssh_channel_free(channel_);
        channel_ = nullptr;
        if (!connected) lost("start a command");
        throw RemoteError(label_ + " refused to run a command: " + ssh_get_error(session_) + "; check that the account may run commands");
    }
}

SshChannel::~SshChannel() { close(); }

void SshChannel::close() {
    if (!channel_) return;
    if (ssh_is_connected(session_) && ssh_channel_is_open(channel_)) ssh_channel_close(channel_);
    ssh_channel_free(channel_);
    channel_ = nullptr;
}

void SshChannel::lost(const char* what) { throw ConnectionLostError("lost the connection to " + label_ + " (" + what + ": " + ssh_get_error(session_) + ")"); }

void SshChannel::drainStderr() {
    char buf[4096];
    for (;;) {
        const int n = ssh_channel_read_nonblocking(channel_, buf, sizeof buf, 1);
        if (n == SSH_ERROR) lost("read");
        if (n <= 0) break;
        stderr_.append(buf, static_cast<size_t>(n));
    }
    if (stderr_.size() > 65536) stderr_.erase(0, stderr_.size() - 65536);
}

size_t SshChannel::read(std::string& out, int timeoutMs) {
    if (!channel_) return 0;
    char buf[32768];
    drainStderr();
    int n = ssh_channel_read_timeout(channel_, buf, sizeof buf, 0, timeoutMs);
    if (n == SSH_ERROR) lost("read");
    size_t total = 0;
    while (n > 0) {
        out.append(buf, static_cast<size_t>(n));
        total += static_cast<size_t>(n);
        n = ssh_channel_read_nonblocking(channel_, buf, sizeof buf, 0);  // whatever else is here
        if (n == SSH_ERROR) lost("read");
    }
    drainStderr();
    if (total == 0 && !ssh_is_connected(session_)) lost("read");
    return total;
}

bool SshChannel::atEof() const { return !channel_ || ssh_channel_is_eof(channel_) || !ssh_channel_is_open(channel_); }

void SshChannel::write(const std::string& data) {
    if (!writeUnlessEnded(data)) throw RemoteError("the command on " + label_ + " has ended; its stdin is closed");
}

bool SshChannel::writeUnlessEnded(const std::string& data) {
    if (!channel_ || exitStatus_) return false;
    if (ssh_channel_write(channel_, data.data(), static_cast<uint32_t>(data.size())) == static_cast<int>(data.size())) return true;
    // libssh refuses a write to a channel the other side closed with SSH_REQUEST_DENIED ("Remote
    // channel is closed"); a connection that is gone is SSH_FATAL.
    if (ssh_is_connected(session_) && (ssh_get_error_code(session_) == SSH_REQUEST_DENIED || ssh_channel_is_closed(channel_) != 0)) return false;
    lost("write");
    return false;
}

void SshChannel::sendEof() {
    if (channel_ && ssh_channel_is_open(channel_)) ssh_channel_send_eof(channel_);
}

std::optional<int> SshChannel::exitStatus(int timeoutMs) {
    if (exitStatus_) return exitStatus_;
    if (!channel_) return std::nullopt;
    // Read to the end first: the status arrives after the output.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    std::string sink;
    while (!atEof() && std::chrono::steady_clock::now() < deadline) {
        sink.clear();
        read(sink, 100);
    }
    drainStderr();
    if (!ssh_is_connected(session_)) return std::nullopt;
    const int st = ssh_channel_get_exit_status(channel_);
    if (st < 0) return std::nullopt;
    exitStatus_ = st;
    return st;
}

}  // namespace streetgan
