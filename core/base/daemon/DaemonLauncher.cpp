#include "base/daemon/DaemonLauncher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/daemon/RunLock.h"
#include "base/run/RunDirectory.h"
#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {

std::string lastLineOf(const std::string& path) {
    std::ifstream in(path);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    return last;
}

}  // namespace

DaemonLauncher::Result DaemonLauncher::launch(const TrainConfig& cfg, const std::string& runDir, bool resume, std::chrono::seconds wait) {
    std::string abs = fs::absolute(runDir).lexically_normal().string();
    while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
    RunDirectory dir(abs, /*create=*/true);
    if (RunLock::isHeld(abs)) {
        const int64_t pid = RunLock::recordedPid(abs);
        throw IoError("run directory '" + abs + "' already has a live trainer" + (pid > 0 ? " (pid " + std::to_string(pid) + ")" : "") +
                      ": attach to it, or stop it first with `streetgan-trainer control " + abs + " stop`");
    }
    const std::string configPath = abs + "/start-config.json";
    AtomicFile::write(configPath, cfg.toJson().dump(2) + "\n");

    const std::string exe = Paths::selfExecutable();

    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) throw IoError(std::string("cannot create a pipe: ") + std::strerror(errno));
    const std::string logPath = abs + "/trainer.log";
    const int logFd = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    const int nullFd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (logFd < 0 || nullFd < 0) {
        const int err = errno;
        for (int fd : {pipeFds[0], pipeFds[1], logFd, nullFd})
            if (fd >= 0) ::close(fd);
        throw IoError("cannot open '" + logPath + "' for the trainer's log: " + std::strerror(err));
    }

    // Everything the child needs is prepared before fork: between fork and exec only
    // async-signal-safe calls are allowed (LibTorch may have started threads).
    std::vector<std::string> args = {exe, "train", "--run-dir", abs, "--config", configPath, "--daemon-fd", std::to_string(pipeFds[1])};
    if (resume) args.emplace_back("--resume");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    static const char kExecFailed[] = "error 1 cannot execute the trainer binary\n";

    const pid_t child = ::fork();
    if (child < 0) throw IoError(std::string("cannot fork the trainer: ") + std::strerror(errno));
    if (child == 0) {
        ::setsid();  // a session of its own: no controlling terminal, no SIGHUP from the caller's
        if (::fork() != 0) ::_exit(0);
        ::dup2(nullFd, STDIN_FILENO);
        ::dup2(logFd, STDOUT_FILENO);
        ::dup2(logFd, STDERR_FILENO);
        ::fcntl(pipeFds[1], F_SETFD, 0);  // the readiness pipe survives exec
        ::signal(SIGHUP, SIG_IGN);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execv(exe.c_str(), argv.data());
        [[maybe_unused]] const ssize_t w = ::write(pipeFds[1], kExecFailed, sizeof kExecFailed - 1);
        ::_exit(127);
    }
    ::close(pipeFds[1]);
    ::close(logFd);
    ::close(nullFd);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}

    Result result;
    result.runDir = abs;
    std::string reply;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) break;
        pollfd p{pipeFds[0], POLLIN, 0};
        const int r = ::poll(&p, 1, static_cast<int>(left));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        char buf[1024];
        const ssize_t got = ::read(pipeFds[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {  // EOF: the daemon exited (or closed the pipe) without a word
            ::close(pipeFds[0]);
            const std::string last = lastLineOf(logPath);
            throw Error("the detached trainer exited before training: " + (last.empty() ? std::string("no message") : last) + " (log: " + logPath + ")");
        }
        reply.append(buf, static_cast<size_t>(got));
        if (reply.find('\n') != std::string::npos) break;
    }
    ::close(pipeFds[0]);
    reply = reply.substr(0, reply.find('\n'));
    if (reply == "ready") {
        result.ready = true;
    } else if (reply.rfind("error ", 0) == 0) {
        const std::string rest = reply.substr(6);
        const auto space = rest.find(' ');
        int code = static_cast<int>(ExitCode::Failure);
        try {
            code = std::stoi(rest.substr(0, space));
        } catch (const std::exception&) {}
        std::string message = space == std::string::npos ? "" : rest.substr(space + 1);
        const std::string prefix = "streetgan-trainer: ";
        if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
        throwForExitCode(code, message + " (the detached trainer did not start; log: " + logPath + ")");
    }
    return result;
}

}  // namespace streetgan
