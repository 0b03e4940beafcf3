#include "ml/dist/RankLauncher.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <thread>

#include "base/util/Errors.h"

extern char** environ;

namespace streetgan {
namespace {

using Clock = std::chrono::steady_clock;

struct Rank {
    int global = 0;
    pid_t pid = -1;
    int errFd = -1;        // read end of the rank's stderr pipe
    std::string partial;   // stderr text after the last newline
    std::string lastLine;  // last non-empty complete line
    bool running = false;
    int code = 0;  // exit code, or 128 + signal
};

void relay(Rank& r, const char* data, size_t n) {
    r.partial.append(data, n);
    size_t nl;
    while ((nl = r.partial.find('\n')) != std::string::npos) {
        std::string line = r.partial.substr(0, nl);
        r.partial.erase(0, nl + 1);
        // The progress bar's carriage returns: keep the last segment.
        if (auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
        if (line.empty()) continue;
        r.lastLine = line;
        std::cerr << "[rank " << r.global << "] " << line << '\n';
    }
}

void drain(Rank& r) {
    if (r.errFd < 0) return;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(r.errFd, buf, sizeof buf);
        if (n > 0) {
            relay(r, buf, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) {  // EOF: the rank closed stderr (exited)
            if (!r.partial.empty()) relay(r, "\n", 1);
            ::close(r.errFd);
            r.errFd = -1;
        }
        return;  // EAGAIN: nothing more now
    }
}

}  // namespace

RankLauncher::RankLauncher(LaunchOptions options) : opt_(std::move(options)) {
    if (opt_.nproc < 1 || opt_.nproc > 1024) throw ConfigError("--nproc " + std::to_string(opt_.nproc) + " is out of range: use 1..1024");
    if (opt_.nnodes < 1) throw ConfigError("--nnodes " + std::to_string(opt_.nnodes) + " is out of range: use 1 or more");
    if (opt_.nodeRank < 0 || opt_.nodeRank >= opt_.nnodes)
        throw ConfigError("--node-rank " + std::to_string(opt_.nodeRank) + " is out of range: use 0.." + std::to_string(opt_.nnodes - 1));
    if (opt_.nnodes > 1 && opt_.masterPort == 0)
        throw ConfigError("--nnodes " + std::to_string(opt_.nnodes) + " needs --master ADDR:PORT, the address of node 0 that every node can reach");
    if (opt_.args.empty()) throw ConfigError("launch has no command to run: give it after --, e.g. launch --nproc 2 -- train --run-dir DIR");
    if (opt_.exe.empty()) throw ConfigError("launch has no program to run");
}

int RankLauncher::freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw IoError(std::string("cannot open a socket to find a free port (") + std::strerror(errno) + ")");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        const int e = errno;
        ::close(fd);
        throw IoError(std::string("cannot bind a socket on 127.0.0.1 to find a free port (") + std::strerror(e) + ")");
    }
    ::close(fd);
    return ntohs(a.sin_port);
}

int RankLauncher::run(const std::atomic<int>& signal) {
    // The port is free when picked and taken by rank 0's TCPStore moments later; another process
    // could grab it in between (torchrun has the same window), which fails the rendezvous loudly.
    if (opt_.masterPort == 0) opt_.masterPort = freePort();
    const int world = opt_.nproc * opt_.nnodes;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const bool ompGiven = std::getenv("OMP_NUM_THREADS") != nullptr;

    std::vector<Rank> ranks(static_cast<size_t>(opt_.nproc));
    auto killAll = [&](int sig) {
        for (auto& r : ranks)
            if (r.running) ::kill(r.pid, sig);
    };
    for (int local = 0; local < opt_.nproc; ++local) {
        Rank& r = ranks[static_cast<size_t>(local)];
        r.global = opt_.nodeRank * opt_.nproc + local;
        // Everything execve needs is built before fork: the child only calls async-signal-safe functions.
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e) {
            const std::string kv = *e;
            const std::string key = kv.substr(0, kv.find('='));
            if (key == "RANK" || key == "WORLD_SIZE" || key == "LOCAL_RANK" || key == "LOCAL_WORLD_SIZE" || key == "MASTER_ADDR" || key == "MASTER_PORT" ||
                key == "GROUP_RANK")
                continue;
            env.push_back(kv);
        }
        env.push_back("RANK=" + std::to_string(r.global));
        env.push_back("WORLD_SIZE=" + std::to_string(world));
        env.push_back("LOCAL_RANK=" + std::to_string(local));
        env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(opt_.nproc));
        env.push_back("GROUP_RANK=" + std::to_string(opt_.nodeRank));
        env.push_back("MASTER_ADDR=" + opt_.masterAddr);
        env.push_back("MASTER_PORT=" + std::to_string(opt_.masterPort));
        // As torchrun: ranks sharing a machine share its cores instead of each taking all of them.
        if (!ompGiven) env.push_back("OMP_NUM_THREADS=" + std::to_string(std::max(1u, cores / static_cast<unsigned>(opt_.nproc))));
        std::vector<char*> envp, argv;
        for (auto& e : env) envp.push_back(e.data());
        envp.push_back(nullptr);
        std::string exe = opt_.exe;
        argv.push_back(exe.data());
        for (auto& a : opt_.args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);

        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) {
            killAll(SIGKILL);
            throw IoError(std::string("cannot create a pipe for rank ") + std::to_string(r.global) + " (" + std::strerror(errno) + ")");
        }
        const pid_t launcher = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0) {
            ::close(fds[0]);
            ::close(fds[1]);
            killAll(SIGKILL);
            throw IoError(std::string("cannot start rank ") + std::to_string(r.global) + " (fork: " + std::strerror(errno) + ")");
        }
        if (pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != launcher) ::_exit(127);  // the launcher died before prctl
            ::dup2(fds[1], STDERR_FILENO);              // dup2 clears O_CLOEXEC on the copy
            ::signal(SIGINT, SIG_DFL);
            ::signal(SIGTERM, SIG_DFL);
            ::execve(argv[0], argv.data(), envp.data());
            const char msg[] = "streetgan-trainer launch: cannot execute the rank's program\n";
            (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
            ::_exit(127);
        }
        ::close(fds[1]);
        ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
        r.pid = pid;
        r.errFd = fds[0];
        r.running = true;
    }

    int forwarded = 0;
    int firstFailure = -1;  // index into ranks
    Clock::time_point killAt{};
    bool killed = false;
    for (;;) {
        bool anyRunning = false;
        for (auto& r : ranks) anyRunning = anyRunning || r.running || r.errFd >= 0;
        if (!anyRunning) break;

        std::vector<pollfd> pfds;
        std::vector<Rank*> owners;
        for (auto& r : ranks)
            if (r.errFd >= 0) {
                pfds.push_back({r.errFd, POLLIN, 0});
                owners.push_back(&r);
            }
        if (!pfds.empty())
            ::poll(pfds.data(), pfds.size(), 100);
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        for (size_t i = 0; i < pfds.size(); ++i)
            if (pfds[i].revents != 0) drain(*owners[i]);

        if (const int sig = signal.load(); sig != 0 && sig != forwarded) {
            forwarded = sig;
            killAll(sig);
        }
        for (size_t i = 0; i < ranks.size(); ++i) {
            Rank& r = ranks[i];
            if (!r.running) continue;
            int status = 0;
            const pid_t p = ::waitpid(r.pid, &status, WNOHANG);
            if (p != r.pid) continue;
            r.running = false;
            r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            // A rank stopped by the forwarded signal (130) is not a failure; anything else is.
            const bool stoppedBySignal = forwarded != 0 && (r.code == static_cast<int>(ExitCode::Interrupted) || r.code == 128 + forwarded);
            if (r.code != 0 && !stoppedBySignal && firstFailure < 0) {
                firstFailure = static_cast<int>(i);
                killAll(SIGTERM);
                killAt = Clock::now() + opt_.grace;
            }
        }
        if (firstFailure >= 0 && !killed && Clock::now() >= killAt) {
            killAll(SIGKILL);
            killed = true;
        }
    }
    if (firstFailure >= 0) {
        const Rank& r = ranks[static_cast<size_t>(firstFailure)];
        failure_ = "rank " + std::to_string(r.global) + " failed (exit " + std::to_string(r.code) + ")" + (r.lastLine.empty() ? "" : ": " + r.lastLine);
        return r.code;
    }
    for (const auto& r : ranks)
        if (r.code != 0) return r.code;  // every rank stopped by the forwarded signal
    return 0;
}

}  // namespace streetgan
