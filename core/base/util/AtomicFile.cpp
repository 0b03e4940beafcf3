#include "base/util/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "base/util/Errors.h"

namespace streetgan {
namespace {

std::string dirOf(const std::string& path) {
    auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

}  // namespace

std::string AtomicFile::describeError(int err) {
    if (err == ENOSPC || err == EDQUOT) return std::string(kDiskFull) + ": free some space and retry";
    // EFBIG: the process's file-size limit (RLIMIT_FSIZE) or the file system's largest file. For
    // the user it is a full disk all the same (nothing more fits in this file); the limit is named
    // so that a `ulimit -f` set by a job scheduler can be found.
    if (err == EFBIG)
        return std::string(kDiskFull) + " for this file (it reached the file-size limit, ulimit -f): free some space or raise the limit and retry";
    if (err == EACCES || err == EPERM || err == EROFS) return std::string(std::strerror(err)) + ": check the folder's permissions";
    // O_NOFOLLOW met a link where a file of the run was to be (a link planted to redirect it).
    if (err == ELOOP) return "it is a symbolic link, and files of a run are not written through links: remove the link";
    return std::strerror(err);
}

void AtomicFile::ignoreFileSizeSignal() {
    // A signal disposition is process-wide; setting it once avoids racing with a caller that has
    // installed its own handler meanwhile.
    static std::once_flag ignoreXfsz;
    std::call_once(ignoreXfsz, [] { std::signal(SIGXFSZ, SIG_IGN); });
}

int AtomicFile::removeStaleTemporaries(const std::string& dir) {
    namespace fs = std::filesystem;
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        // write()'s temporary names: NAME.tmp.<digits>.<digits>
        const std::string name = entry.path().filename().string();
        const size_t at = name.rfind(".tmp.");
        if (at == std::string::npos || at == 0) continue;
        const std::string rest = name.substr(at + 5);
        const size_t dot = rest.find('.');
        const auto digits = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
        if (dot == std::string::npos || !digits(rest.substr(0, dot)) || !digits(rest.substr(dot + 1))) continue;
        if (fs::remove(entry.path(), ec)) ++removed;
    }
    return removed;
}

void AtomicFile::write(const std::string& path, const void* data, size_t size) {
    ignoreFileSizeSignal();  // SIGXFSZ would kill the process on a file-size limit: we want EFBIG
    // Unique per process and call: two threads replacing the same file never share a temp file.
    static std::atomic<unsigned long> counter{0};
    const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw IoError("cannot write '" + path + "': " + describeError(errno));
    auto fail = [&](int err) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw IoError("cannot write '" + path + "' (previous version kept): " + describeError(err));
    };
    const char* p = static_cast<const char*>(data);
    size_t left = size;
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(errno);
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) fail(errno);
    if (::close(fd) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        throw IoError("cannot write '" + path + "' (previous version kept): " + describeError(err));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        throw IoError("cannot replace '" + path + "': " + describeError(err));
    }
    int dfd = ::open(dirOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

std::string AtomicFile::read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("cannot read '" + path + "': " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace streetgan
