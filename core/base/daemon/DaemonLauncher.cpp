#include "base/daemon/DaemonLauncher.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/daemon/DetachedProcess.h"
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

    const std::string logPath = abs + "/trainer.log";
    DetachedProcess daemon(logPath, 0600, "the trainer's log");
    // The trainer writes "ready" or "error CODE MESSAGE" into the kept pipe (--daemon-fd).
    std::vector<std::string> args = {exe, "train", "--run-dir", abs, "--config", configPath, "--daemon-fd", std::to_string(daemon.writeFd())};
    if (resume) args.emplace_back("--resume");
    daemon.start(args, DetachedProcess::Forks::Twice, DetachedProcess::Readiness::Kept, "error 1 cannot execute the trainer binary\n");
    const int readFd = daemon.readFd();

    Result result;
    result.runDir = abs;
    std::string reply;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) break;
        pollfd p{readFd, POLLIN, 0};
        const int r = ::poll(&p, 1, static_cast<int>(left));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        char buf[1024];
        const ssize_t got = ::read(readFd, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {  // EOF: the daemon exited (or closed the pipe) without a word
            const std::string last = lastLineOf(logPath);
            throw Error("the detached trainer exited before training: " + (last.empty() ? std::string("no message") : last) + " (log: " + logPath + ")");
        }
        reply.append(buf, static_cast<size_t>(got));
        if (reply.find('\n') != std::string::npos) break;
    }
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
