#include "base/daemon/RunLock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

std::string lockPath(const std::string& runDir) { return runDir + "/trainer.lock"; }
std::string pidPath(const std::string& runDir) { return runDir + "/trainer.pid"; }

struct flock wholeFile(short type) {
    struct flock fl;
    std::memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    return fl;
}

}  // namespace

RunLock::RunLock(const std::string& runDir) : runDir_(runDir) {
    fd_ = ::open(lockPath(runDir).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_ < 0) throw IoError("cannot open '" + lockPath(runDir) + "': " + std::strerror(errno));
    struct flock fl = wholeFile(F_WRLCK);
    if (::fcntl(fd_, F_OFD_SETLK, &fl) != 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        if (err == EAGAIN || err == EACCES) {
            const int64_t pid = recordedPid(runDir);
            throw IoError("run directory '" + runDir + "' already has a live trainer" + (pid > 0 ? " (pid " + std::to_string(pid) + ")" : "") +
                          ": attach to it, or stop it first with `streetgan-trainer control " + runDir + " stop`");
        }
        throw IoError("cannot lock '" + lockPath(runDir) + "': " + std::strerror(err));
    }
    AtomicFile::write(pidPath(runDir), std::to_string(::getpid()) + "\n");
}

RunLock::~RunLock() {
    if (fd_ < 0) return;
    ::unlink(pidPath(runDir_).c_str());
    ::close(fd_);  // releases the lock
}

bool RunLock::isHeld(const std::string& runDir) {
    const int fd = ::open(lockPath(runDir).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct flock fl = wholeFile(F_WRLCK);
    const bool held = ::fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    ::close(fd);
    return held;
}

int64_t RunLock::recordedPid(const std::string& runDir) {
    std::ifstream in(pidPath(runDir));
    int64_t pid = 0;
    if (!(in >> pid)) return 0;
    return pid;
}

}  // namespace streetgan
