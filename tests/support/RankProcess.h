// A child process for the tests (distributed ranks, servers): argv, extra environment (RANK, WORLD_SIZE, ...),
// stdout/stderr to files; waits with a deadline and is killed (SIGKILL) when the test leaves it.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace streetgan::test {

class RankProcess {
public:
    RankProcess(std::vector<std::string> argv, const std::map<std::string, std::string>& env, const std::string& logPrefix)
        : out_(logPrefix + ".out"), err_(logPrefix + ".err") {
        std::vector<std::string> envs;
        for (char** e = environ; *e; ++e) {
            std::string kv = *e;
            if (!env.count(kv.substr(0, kv.find('=')))) envs.push_back(kv);
        }
        for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
        std::vector<char*> a, e;
        for (auto& s : argv) a.push_back(s.data());
        a.push_back(nullptr);
        for (auto& s : envs) e.push_back(s.data());
        e.push_back(nullptr);
        pid_ = ::fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            const int o = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            const int r = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            ::dup2(o, 1);
            ::dup2(r, 2);
            ::execve(a[0], a.data(), e.data());
            ::_exit(127);
        }
    }
    ~RankProcess() {
        if (!code_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    RankProcess(const RankProcess&) = delete;
    RankProcess& operator=(const RankProcess&) = delete;

    pid_t pid() const { return pid_; }
    void signal(int sig) const { ::kill(pid_, sig); }
    /// Exit code (128 + signal when killed), or nullopt when still running after `seconds`.
    std::optional<int> wait(double seconds) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (!code_) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                break;
            }
            if (std::chrono::steady_clock::now() >= end) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return code_;
    }
    std::string out() const { return slurp(out_); }
    std::string err() const { return slurp(err_); }

    static std::string slurp(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    /// A port of 127.0.0.1 free a moment ago (the kernel's pick for port 0).
    static int freePort() {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        ::close(fd);
        return ntohs(a.sin_port);
    }
    /// torchrun's environment of rank `rank` of `world` on this machine.
    static std::map<std::string, std::string> rankEnv(int rank, int world, int port) {
        return {{"RANK", std::to_string(rank)},
                {"WORLD_SIZE", std::to_string(world)},
                {"LOCAL_RANK", std::to_string(rank)},
                {"LOCAL_WORLD_SIZE", std::to_string(world)},
                {"MASTER_ADDR", "127.0.0.1"},
                {"MASTER_PORT", std::to_string(port)},
                {"OMP_NUM_THREADS", "1"}};
    }

private:
    std::string out_, err_;
    pid_t pid_ = -1;
    std::optional<int> code_;
};

}  // namespace streetgan::test
