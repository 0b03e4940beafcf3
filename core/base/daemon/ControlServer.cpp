#include "base/daemon/ControlServer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/daemon/ControlSocket.h"
#include "base/daemon/TrainControl.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

constexpr size_t kMaxClients = 64;
constexpr size_t kMaxLine = size_t{64} * 1024;  // a request is a few dozen bytes; anything longer is abuse

}  // namespace

ControlServer::ControlServer(std::string socketPath, TrainControl& control) : path_(std::move(socketPath)), control_(control) {
    listenFd_ = ControlSocket::listenAt(path_);
    if (::pipe2(wakeFds_, O_CLOEXEC | O_NONBLOCK) != 0) {
        ::close(listenFd_);
        throw IoError(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    thread_ = std::thread([this] { serve(); });
}

ControlServer::~ControlServer() {
    const char c = 'q';
    [[maybe_unused]] const ssize_t n = ::write(wakeFds_[1], &c, 1);
    if (thread_.joinable()) thread_.join();
    ::close(listenFd_);
    ::close(wakeFds_[0]);
    ::close(wakeFds_[1]);
    ::unlink(path_.c_str());  // long paths: the stale file is replaced by the next listenAt
}

void ControlServer::serve() {
    std::map<int, std::string> clients;  // fd -> unparsed input
    for (;;) {
        std::vector<pollfd> fds = {{wakeFds_[0], POLLIN, 0}, {listenFd_, POLLIN, 0}};
        for (const auto& c : clients) fds.push_back({c.first, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[0].revents) break;
        if (fds[1].revents & POLLIN) {
            const int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) {
                if (clients.size() >= kMaxClients) {
                    ControlSocket::sendAll(fd, R"({"ok":false,"error":"too many control clients"})"
                                               "\n");
                    ::close(fd);
                } else {
                    clients[fd];
                }
            }
        }
        for (size_t i = 2; i < fds.size(); ++i) {
            if (!fds[i].revents) continue;
            const int fd = fds[i].fd;
            std::string& buf = clients[fd];
            char chunk[4096];
            const ssize_t n = ::read(fd, chunk, sizeof chunk);
            bool drop = n <= 0 && !(n < 0 && errno == EINTR);
            if (n > 0) buf.append(chunk, static_cast<size_t>(n));
            size_t nl;
            while (!drop && (nl = buf.find('\n')) != std::string::npos) {
                const std::string line = buf.substr(0, nl);
                buf.erase(0, nl + 1);
                if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
                // replace: an invalid UTF-8 byte in a reply must not throw out of (and end) this thread
                drop = !ControlSocket::sendAll(fd, control_.submitLine(line).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
            }
            if (!drop && buf.size() > kMaxLine) {
                ControlSocket::sendAll(fd, R"({"ok":false,"error":"control request line too long"})"
                                           "\n");
                drop = true;
            }
            if (drop) {
                ::close(fd);
                clients.erase(fd);
            }
        }
    }
    for (const auto& c : clients) ::close(c.first);
}

}  // namespace streetgan
