#include "base/daemon/DetachedProcess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/util/Errors.h"

namespace streetgan {

DetachedProcess::DetachedProcess(const std::string& logPath, unsigned mode, const std::string& what, const std::string& hint) {
    log_ = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, mode);
    int err = errno;
    if (log_ < 0) throw IoError("cannot open '" + logPath + "' for " + what + " (" + std::strerror(err) + ")" + (hint.empty() ? "" : "; " + hint));
    null_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    err = errno;
    if (null_ < 0 || ::pipe2(pipe_, O_CLOEXEC) != 0) {
        if (pipe_[0] < 0) err = errno;
        closeFd(log_);
        closeFd(null_);
        throw IoError("cannot prepare the process writing " + what + " (" + std::strerror(err) + ")");
    }
}

DetachedProcess::~DetachedProcess() {
    for (int* fd : {&log_, &null_, &pipe_[0], &pipe_[1]}) closeFd(*fd);
}

void DetachedProcess::closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

pid_t DetachedProcess::start(const std::vector<std::string>& args, Forks forks, Readiness readiness, const std::string& execFailed) {
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int logFd = log_, nullFd = null_, writeFd = pipe_[1];
    const bool twice = forks == Forks::Twice, keep = readiness == Readiness::Kept;

    const pid_t child = ::fork();
    if (child < 0) throw IoError(std::string("cannot fork (") + std::strerror(errno) + ")");
    if (child == 0) {
        ::setsid();
        if (twice && ::fork() != 0) ::_exit(0);
        ::dup2(nullFd, STDIN_FILENO);
        ::dup2(logFd, STDOUT_FILENO);
        ::dup2(logFd, STDERR_FILENO);
        if (keep) ::fcntl(writeFd, F_SETFD, 0);
        ::signal(SIGHUP, SIG_IGN);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execv(argv[0], argv.data());
        [[maybe_unused]] const ssize_t w = ::write(writeFd, execFailed.data(), execFailed.size());
        ::_exit(127);
    }
    // The caller keeps only the read end: end of file then means every writer is gone.
    closeFd(pipe_[1]);
    closeFd(log_);
    closeFd(null_);
    if (twice) {
        int status = 0;
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    }
    return child;
}

std::string DetachedProcess::readAll() {
    std::string said;
    char buf[256];
    for (;;) {
        const ssize_t n = ::read(pipe_[0], buf, sizeof buf);
        if (n > 0) said.append(buf, static_cast<size_t>(n));
        if (n == 0 || (n < 0 && errno != EINTR)) break;
    }
    return said;
}

}  // namespace streetgan
