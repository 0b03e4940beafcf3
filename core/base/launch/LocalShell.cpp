#include "base/launch/LocalShell.h"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

#include "base/util/Errors.h"

extern char** environ;

namespace streetgan {

namespace {

// The user's home folder: $HOME, else the passwd entry, else "/" (`cd` in a shell also fails
// quietly to nowhere better).
std::string homeFolder() {
    const char* home = std::getenv("HOME");
    if (home && *home) return home;
    passwd pw{};
    passwd* found = nullptr;
    char buf[4096];
    if (::getpwuid_r(::getuid(), &pw, buf, sizeof buf, &found) == 0 && found && found->pw_dir && *found->pw_dir) return found->pw_dir;
    return "/";
}

// This process's environment with `extra` set on top ("NAME=value" strings).
std::vector<std::string> environmentWith(const std::vector<std::pair<std::string, std::string>>& extra) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        bool replaced = false;
        for (const auto& [k, v] : extra) replaced = replaced || k == name;
        if (!replaced) env.push_back(entry);
    }
    for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
    return env;
}

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// Reads what is there now; false at end of file (the fd is closed then).
void readAvailable(int& fd, std::string& into) {
    char buf[16384];
    while (fd >= 0) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            into.append(buf, static_cast<size_t>(n));
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) closeFd(fd);
            return;
        }
    }
}

// A descriptor that becomes readable when `pid` exits (Linux 5.3 and later), or -1: the loop
// then looks at the child every 20 ms instead. Through syscall(): glibc before 2.36 (the floor
// build's 2.28) has no wrapper.
int pidFd(pid_t pid) {
#ifdef SYS_pidfd_open
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
    return -1;
#endif
}

// In the child, between fork and exec (async-signal-safe calls only): every descriptor from 3 up
// goes, so that a daemon the command detaches holds none of the caller's (its sockets, its other
// children's pipes). `maxFd` is computed before fork.
void closeFrom3(long maxFd) {
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
    for (long fd = 3; fd < maxFd; ++fd) ::close(static_cast<int>(fd));
}

}  // namespace

LocalShell::LocalShell(std::vector<std::pair<std::string, std::string>> environment) : environment_(std::move(environment)) {}

std::string LocalShell::label() const { return "this computer"; }

ExecResult LocalShell::run(const std::string& command, const std::string& stdinData) {
    // Everything the child needs is prepared before fork: the caller may have threads.
    const std::string home = homeFolder();
    std::string sh = "/bin/sh", dashC = "-c", cmd = command;
    char* argv[] = {sh.data(), dashC.data(), cmd.data(), nullptr};
    std::vector<std::string> envStrings = environmentWith(environment_);
    std::vector<char*> envp;
    for (auto& e : envStrings) envp.push_back(e.data());
    envp.push_back(nullptr);
    const long maxFd = ::sysconf(_SC_OPEN_MAX) > 0 ? ::sysconf(_SC_OPEN_MAX) : 1024;

    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        for (int* p : {in, out, err}) {
            closeFd(p[0]);
            closeFd(p[1]);
        }
        throw IoError(std::string("cannot run a command on this computer: no pipe (") + std::strerror(e) + "); close other programs and retry");
    }
    // A command that exits without reading its stdin makes our write raise SIGPIPE: blocked on
    // this thread while we write, and taken back below if we caused it.
    sigset_t pipeSet, oldMask;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipeSet, &oldMask);
    sigset_t pendingBefore;
    ::sigpending(&pendingBefore);

    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(in[0], STDIN_FILENO);
        ::dup2(out[1], STDOUT_FILENO);
        ::dup2(err[1], STDERR_FILENO);
        closeFrom3(maxFd);
        ::signal(SIGPIPE, SIG_DFL);
        ::sigprocmask(SIG_SETMASK, &oldMask, nullptr);
        [[maybe_unused]] const int cd = ::chdir(home.c_str());  // as `cd 2>/dev/null`: stay where we are when it fails
        ::execve(argv[0], argv, envp.data());
        static const char kFailed[] = "cannot execute /bin/sh\n";
        [[maybe_unused]] const ssize_t w = ::write(STDERR_FILENO, kFailed, sizeof kFailed - 1);
        ::_exit(127);
    }
    const int forkErrno = errno;
    closeFd(in[0]);
    closeFd(out[1]);
    closeFd(err[1]);
    if (pid < 0) {
        for (int* fd : {&in[1], &out[0], &err[0]}) closeFd(*fd);
        ::pthread_sigmask(SIG_SETMASK, &oldMask, nullptr);
        throw IoError(std::string("cannot run a command on this computer: no new process (") + std::strerror(forkErrno) + "); close other programs and retry");
    }
    for (int fd : {in[1], out[0], err[0]}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    if (stdinData.empty()) closeFd(in[1]);
    int exitFd = pidFd(pid);

    ExecResult result;
    size_t written = 0;
    int status = 0;
    bool reaped = false;
    for (;;) {
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        reaped = w == pid;
        if (reaped || (w < 0 && errno != EINTR)) break;  // ECHILD: someone else reaped it
        pollfd fds[4];
        nfds_t n = 0;
        if (out[0] >= 0) fds[n++] = {out[0], POLLIN, 0};
        if (err[0] >= 0) fds[n++] = {err[0], POLLIN, 0};
        if (in[1] >= 0) fds[n++] = {in[1], POLLOUT, 0};
        if (exitFd >= 0) fds[n++] = {exitFd, POLLIN, 0};
        if (::poll(fds, n, exitFd >= 0 ? -1 : 20) < 0 && errno != EINTR) break;
        readAvailable(out[0], result.out);
        readAvailable(err[0], result.err);
        if (in[1] >= 0) {
            const ssize_t k = ::write(in[1], stdinData.data() + written, stdinData.size() - written);
            if (k > 0) written += static_cast<size_t>(k);
            if ((k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) || written == stdinData.size())
                closeFd(in[1]);  // EPIPE: it stopped reading
        }
    }
    // The shell has ended: what it wrote is in the pipes now; a background process it left
    // behind may hold them open, so read what is there and no more.
    readAvailable(out[0], result.out);
    readAvailable(err[0], result.err);
    for (int* fd : {&in[1], &out[0], &err[0], &exitFd}) closeFd(*fd);
    if (reaped && WIFEXITED(status)) result.exitStatus = WEXITSTATUS(status);
    if (reaped && WIFSIGNALED(status)) result.signal = WTERMSIG(status);

    if (!sigismember(&pendingBefore, SIGPIPE)) {
        sigset_t pending;
        ::sigpending(&pending);
        const timespec zero{0, 0};
        if (sigismember(&pending, SIGPIPE)) ::sigtimedwait(&pipeSet, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &oldMask, nullptr);
    return result;
}

}  // namespace streetgan
