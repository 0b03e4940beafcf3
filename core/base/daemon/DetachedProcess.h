// DetachedProcess: starts a program that outlives its caller and the SSH session that ran it, the
// one fork/setsid/exec sequence of `start --detach` (DaemonLauncher) and `launch --detach`
// (LaunchCommand). The child gets a session of its own (no controlling terminal, no SIGHUP from
// the caller's), stdin from /dev/null, stdout and stderr appended to a log, SIGHUP ignored and an
// empty signal mask. A pipe (both ends close-on-exec) tells the caller what happened: the read
// end sees end of file once exec succeeded, unless the child keeps the write end
// (Readiness::Kept: the program writes its own answer there, as the trainer's --daemon-fd does),
// and sees the exec-failure text when exec failed.
//
// Thread contract: one thread uses an object; start() is called at most once. Between fork and
// exec the child makes async-signal-safe calls only (LibTorch may have started threads), so
// everything exec needs is built before fork.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace streetgan {

class DetachedProcess {
public:
    /// Once: the child's pid is its own session and process group (the caller can signal the
    /// group); Twice: an intermediate child exits at once, so the program is reparented to init
    /// and can never become the caller's zombie.
    enum class Forks { Once, Twice };
    /// Closed: the pipe's write end closes on exec; Kept: the program inherits it (its number is
    /// writeFd(), for the program's command line).
    enum class Readiness { Closed, Kept };

    /// Opens `logPath` for appending (created with `mode`, not followed when a link) and
    /// /dev/null, and makes the pipe. Throws IoError naming the log, `what` it is ("the trainer's
    /// log") and the `hint` of what to do, if any.
    DetachedProcess(const std::string& logPath, unsigned mode, const std::string& what, const std::string& hint = "");
    ~DetachedProcess();
    DetachedProcess(const DetachedProcess&) = delete;
    DetachedProcess& operator=(const DetachedProcess&) = delete;

    /// The pipe's write end: pass its number to a program that reports through it.
    int writeFd() const { return pipe_[1]; }
    /// The pipe's read end (owned here; closed by the destructor).
    int readFd() const { return pipe_[0]; }

    /// Forks and execs `args` (args[0] is the program's path). Returns the child's pid (with
    /// Forks::Twice, the intermediate child's, already reaped). `execFailed` is what the child
    /// writes into the pipe when exec fails. Throws IoError when fork fails.
    pid_t start(const std::vector<std::string>& args, Forks forks, Readiness readiness, const std::string& execFailed);

    /// Everything the pipe gives until end of file (the caller's own wait, for Readiness::Closed).
    std::string readAll();

private:
    void closeFd(int& fd);
    int log_ = -1, null_ = -1;
    int pipe_[2] = {-1, -1};
};

}  // namespace streetgan
