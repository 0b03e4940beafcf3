#include "base/remote/JumpTunnel.h"

#include <libssh/libssh.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "base/remote/RemoteError.h"

namespace streetgan {

namespace {
constexpr size_t kMaxPending = 4u << 20;  // jump->local bytes buffered before reading pauses
}

JumpTunnel::JumpTunnel(ssh_session_struct* jump, const std::string& jumpLabel, const std::string& host, int port, int keepaliveSeconds)
    : jump_(jump), label_(jumpLabel), keepaliveSeconds_(keepaliveSeconds) {
    channel_ = ssh_channel_new(jump_);
    if (!channel_) throw RemoteError("cannot open a channel on jump host " + label_ + ": " + ssh_get_error(jump_));
    if (ssh_channel_open_forward(channel_, host.c_str(), port, "127.0.0.1", 0) != SSH_OK) {
        const std::string why = ssh_get_error(jump_);
        ssh_channel_free(channel_);
        throw RemoteError("jump host " + label_ + " cannot connect to " + host + ":" + std::to_string(port) + " (" + why +
                          "); check the target's address and port as the jump host sees them, and that the jump host allows TCP forwarding");
    }
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || ::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
        ssh_channel_close(channel_);
        ssh_channel_free(channel_);
        throw RemoteError(std::string("cannot create the local end of the jump tunnel: ") + std::strerror(errno));
    }
    local_ = sv[0];
    target_ = sv[1];
    ::fcntl(local_, F_SETFL, ::fcntl(local_, F_GETFL) | O_NONBLOCK);
    thread_ = std::thread([this] { pump(); });
}

JumpTunnel::~JumpTunnel() {
    stop();
    if (thread_.joinable()) thread_.join();
    if (target_ >= 0) ::close(target_);
    for (int fd : wake_)
        if (fd >= 0) ::close(fd);
}

int JumpTunnel::takeTargetFd() {
    const int fd = target_;
    target_ = -1;
    return fd;
}

void JumpTunnel::stop() {
    if (!stop_.exchange(true) && wake_[1] >= 0) {
        const char c = 1;
        (void)!::write(wake_[1], &c, 1);
    }
}

void JumpTunnel::pump() {
    std::vector<char> buf(size_t{64} * 1024);
    std::string toLocal;
    size_t toLocalPos = 0;
    bool localEof = false, channelEof = false, localWriteShut = false, failed = false;
    auto lastTraffic = std::chrono::steady_clock::now();
    const int jumpFd = ssh_get_fd(jump_);
    while (!stop_.load() && !failed) {
        // Jump host -> local: drain what libssh has (it may have buffered data while writing).
        while (!channelEof && toLocal.size() - toLocalPos < kMaxPending) {
            const int n = ssh_channel_read_nonblocking(channel_, buf.data(), static_cast<uint32_t>(buf.size()), 0);
            if (n > 0) {
                if (toLocalPos == toLocal.size()) {
                    toLocal.clear();
                    toLocalPos = 0;
                }
                toLocal.append(buf.data(), static_cast<size_t>(n));
                bytesIn_ += static_cast<uint64_t>(n);
                lastTraffic = std::chrono::steady_clock::now();
                continue;
            }
            if (n == SSH_ERROR) failed = true;
            if (n == SSH_ERROR || ssh_channel_is_eof(channel_) || !ssh_channel_is_open(channel_)) channelEof = true;
            break;
        }
        while (toLocalPos < toLocal.size()) {
            const ssize_t w = ::send(local_, toLocal.data() + toLocalPos, toLocal.size() - toLocalPos, MSG_NOSIGNAL);
            if (w > 0) {
                toLocalPos += static_cast<size_t>(w);
            } else if (w < 0 && errno == EINTR) {
                continue;
            } else {
                if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) failed = true;  // the target session is gone
                break;
            }
        }
        if (channelEof && toLocalPos == toLocal.size() && !localWriteShut) {
            ::shutdown(local_, SHUT_WR);  // the far end closed: the target session sees EOF
            localWriteShut = true;
        }
        if (failed || (localEof && channelEof)) break;
        if (localEof && localWriteShut) break;

        pollfd fds[3] = {{local_, 0, 0}, {jumpFd, static_cast<short>(channelEof ? 0 : POLLIN), 0}, {wake_[0], POLLIN, 0}};
        if (!localEof) fds[0].events |= POLLIN;
        if (toLocalPos < toLocal.size()) fds[0].events |= POLLOUT;
        int timeoutMs = 1000;
        if (ssh_channel_poll(channel_, 0) > 0 && toLocal.size() - toLocalPos < kMaxPending) timeoutMs = 0;
        const int pr = ::poll(fds, 3, timeoutMs);
        if (pr < 0 && errno != EINTR) break;
        if (fds[2].revents) break;
        // Local -> jump host.
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            for (int rounds = 0; rounds < 16 && !localEof; ++rounds) {
                const ssize_t r = ::recv(local_, buf.data(), buf.size(), 0);
                if (r > 0) {
                    if (ssh_channel_write(channel_, buf.data(), static_cast<uint32_t>(r)) != r) {
                        failed = true;
                        break;
                    }
                    bytesOut_ += static_cast<uint64_t>(r);
                    lastTraffic = std::chrono::steady_clock::now();
                } else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                    localEof = true;  // the target session closed its socket
                    if (!channelEof) ssh_channel_send_eof(channel_);
                } else {
                    break;
                }
            }
        }
        if (keepaliveSeconds_ > 0 && std::chrono::steady_clock::now() - lastTraffic > std::chrono::seconds(keepaliveSeconds_)) {
            ssh_send_ignore(jump_, "keepalive");
            lastTraffic = std::chrono::steady_clock::now();
        }
    }
    ::shutdown(local_, SHUT_RDWR);
    if (ssh_channel_is_open(channel_)) ssh_channel_close(channel_);
    ssh_channel_free(channel_);
    channel_ = nullptr;
    ::close(local_);
    local_ = -1;
}

}  // namespace streetgan
