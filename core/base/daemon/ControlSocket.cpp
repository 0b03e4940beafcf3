#include "base/daemon/ControlSocket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

// Fills `addr` for `path`; long paths go through an O_PATH descriptor of the parent folder,
// which the caller closes after bind/connect (returned in `dirFd`, -1 when unused).
void addressOf(const std::string& path, sockaddr_un& addr, int& dirFd) {
    std::memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    dirFd = -1;
    std::string p = path;
    if (p.size() >= sizeof addr.sun_path) {
        const auto slash = p.rfind('/');
        const std::string dir = slash == std::string::npos ? "." : p.substr(0, slash);
        dirFd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dirFd < 0) throw IoError("cannot open folder '" + dir + "' of control socket: " + std::strerror(errno));
        p = "/proc/self/fd/" + std::to_string(dirFd) + "/" + p.substr(slash + 1);
        if (p.size() >= sizeof addr.sun_path) {
            ::close(dirFd);
            throw IoError("control socket name '" + path + "' is too long");
        }
    }
    std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
}

}  // namespace

int ControlSocket::listenAt(const std::string& path) {
    // Bound under a temporary name, made 0600, then renamed over `path` (replacing a stale socket
    // of a crashed trainer; the caller holds the run lock): no client ever finds the socket with
    // wider permissions, and no process-wide umask is changed (that raced with other threads).
    sockaddr_un addr;
    int dirFd;
    addressOf(path + ".new", addr, dirFd);
    const std::string name = path.substr(path.rfind('/') + 1);  // npos + 1 == 0: no folder
    const std::string target = dirFd >= 0 ? "/proc/self/fd/" + std::to_string(dirFd) + "/" + name : path;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        if (dirFd >= 0) ::close(dirFd);
        throw IoError(std::string("cannot create control socket: ") + std::strerror(errno));
    }
    ::unlink(addr.sun_path);  // left by a trainer that crashed between bind and rename
    int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    if (rc == 0 && (::chmod(addr.sun_path, 0600) != 0 || ::rename(addr.sun_path, target.c_str()) != 0)) {
        rc = -1;
        const int err = errno;
        ::unlink(addr.sun_path);
        errno = err;
    }
    const int err = errno;
    if (dirFd >= 0) ::close(dirFd);
    if (rc != 0 || ::listen(fd, 16) != 0) {
        ::close(fd);
        throw IoError("cannot listen on control socket '" + path + "': " + std::strerror(rc != 0 ? err : errno) +
                      " (is the run directory on a file system without Unix sockets?)");
    }
    return fd;
}

int ControlSocket::connectTo(const std::string& path) {
    sockaddr_un addr;
    int dirFd;
    addressOf(path, addr, dirFd);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw IoError(std::string("cannot create socket: ") + std::strerror(errno));
    const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    const int err = errno;
    if (dirFd >= 0) ::close(dirFd);
    if (rc != 0) {
        ::close(fd);
        throw IoError("the run is not running (no trainer answers on '" + path + "': " + std::strerror(err) +
                      "): start it with `streetgan-trainer start --detach --resume --run-dir ...`");
    }
    return fd;
}

bool ControlSocket::sendAll(int fd, const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
        const ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += static_cast<size_t>(n);
    }
    return true;
}

bool ControlSocket::readLine(int fd, std::string& buffer, std::string& line, int timeoutMs) {
    for (;;) {
        const auto nl = buffer.find('\n');
        if (nl != std::string::npos) {
            line = buffer.substr(0, nl);
            buffer.erase(0, nl + 1);
            return true;
        }
        pollfd p{fd, POLLIN, 0};
        const int r = ::poll(&p, 1, timeoutMs);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        char chunk[4096];
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        buffer.append(chunk, static_cast<size_t>(n));
    }
}

nlohmann::json ControlSocket::request(const std::string& path, const nlohmann::json& request, int timeoutMs) {
    const int fd = connectTo(path);
    std::string buffer, line;
    const bool ok = sendAll(fd, request.dump() + "\n") && readLine(fd, buffer, line, timeoutMs);
    ::close(fd);
    if (!ok) throw IoError("the trainer behind '" + path + "' did not answer within " + std::to_string(timeoutMs / 1000) + " s");
    try {
        return nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
        throw IoError("the trainer behind '" + path + "' sent a malformed reply");
    }
}

}  // namespace streetgan
