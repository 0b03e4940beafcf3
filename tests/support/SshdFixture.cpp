#include "support/SshdFixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace streetgan::test {

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot bind a loopback port");
    }
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

std::string q(const std::string& s) {
    std::string r = "'";
    for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return r + "'";
}

// ppid of every process (from /proc).
std::map<pid_t, pid_t> parents() {
    std::map<pid_t, pid_t> m;
    DIR* d = ::opendir("/proc");
    if (!d) return m;
    while (dirent* e = ::readdir(d)) {
        const pid_t p = static_cast<pid_t>(std::atoi(e->d_name));
        if (p <= 0) continue;
        const std::string stat = slurp("/proc/" + std::string(e->d_name) + "/stat");
        const size_t close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream ss(stat.substr(close + 2));
        char state;
        pid_t ppid = 0;
        ss >> state >> ppid;
        m[p] = ppid;
    }
    ::closedir(d);
    return m;
}

std::vector<pid_t> descendants(pid_t root) {
    const auto m = parents();
    std::vector<pid_t> out, frontier{root};
    while (!frontier.empty()) {
        const pid_t p = frontier.back();
        frontier.pop_back();
        for (const auto& [child, parent] : m)
            if (parent == p) {
                out.push_back(child);
                frontier.push_back(child);
            }
    }
    return out;
}

}  // namespace

std::string shellOutput(const std::string& cmd) {
    FILE* f = ::popen(cmd.c_str(), "r");
    if (!f) throw std::runtime_error("cannot run: " + cmd);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    const int st = ::pclose(f);
    if (st != 0) throw std::runtime_error("command failed (" + std::to_string(st) + "): " + cmd + "\n" + out);
    return out;
}

void SshdFixture::generateKey(const std::string& path, const std::string& passphrase) {
    ::unlink(path.c_str());
    ::unlink((path + ".pub").c_str());
    shellOutput("ssh-keygen -q -t ed25519 -N " + q(passphrase) + " -C streetgan-test -f " + q(path) + " </dev/null 2>&1");
}

SshdFixture::SshdFixture(const std::string& dir, const std::string& authorizedKeys, const Options& options)
    : dir_(dir), authorizedKeys_(authorizedKeys), options_(options) {
    hostKey_ = dir_ + "/ssh_host_" + options_.hostKeyType + "_key";
    shellOutput("ssh-keygen -q -t " + options_.hostKeyType + " -N '' -f " + q(hostKey_) + " </dev/null 2>&1");
    if (::geteuid() == 0) ::mkdir("/run/sshd", 0755);  // privilege separation dir; harmless if present
    start();
}

void SshdFixture::start(int port) {
    for (int attempt = 0; attempt < 5; ++attempt) {
        port_ = port > 0 ? port : freePort();
        config_ = dir_ + "/sshd_config";
        logFile_ = dir_ + "/sshd.log";
        std::ofstream c(config_);
        // SHLVL=1: Debian's bash sources ~/.bashrc when sshd starts it (SSH_CLIENT set, SHLVL
        // below 2); with this it counts itself level 2 and reads no dotfile. The test user's
        // ~/.bashrc is not ours: one with `pyenv init` waited 60 s per session on a lock that a
        // session killed by a fault test had left, and CI ran over time.
        c << "SetEnv SHLVL=1" << (options_.home.empty() ? std::string() : " \"HOME=" + options_.home + "\"");
        for (const std::string& assignment : options_.setEnv) c << " \"" << assignment << "\"";
        c << "\n";
        c << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey " << hostKey_ << "\nPidFile " << dir_ << "/sshd.pid\n"
          << "AuthorizedKeysFile " << authorizedKeys_ << "\nStrictModes no\nUsePAM no\nPubkeyAuthentication yes\n"
          << "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin yes\n"
          << "AllowTcpForwarding " << (options_.allowTcpForwarding ? "yes" : "no") << "\n"
          << "Subsystem sftp internal-sftp\nLogLevel " << options_.logLevel << "\nMaxStartups 100\nMaxSessions 50\n"
          << "LoginGraceTime 60\nClientAliveInterval 0\nPrintMotd no\nPrintLastLog no\nUseDNS no\n";
        c.close();
        // Emptied before the fork: the child's own O_TRUNC may come after the wait below first reads
        // the file, which would then find the previous server's "Server listening" line (restart()).
        std::ofstream(logFile_, std::ios::trunc).close();
        const pid_t pid = ::fork();
        if (pid < 0) throw std::runtime_error("fork failed");
        if (pid == 0) {
            const int fd = ::open(logFile_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int devnull = ::open("/dev/null", O_RDONLY);
            ::dup2(devnull, 0);
            ::dup2(fd, 1);
            ::dup2(fd, 2);
            ::execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", config_.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        pid_ = pid;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < deadline) {
            if (log().find("Server listening on 127.0.0.1 port " + std::to_string(port_)) != std::string::npos) return;
            int st = 0;
            if (::waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                break;  // failed (port taken?): retry on another port
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
            pid_ = -1;
        }
    }
    throw std::runtime_error("sshd did not start; its log:\n" + log());
}

SshdFixture::~SshdFixture() { stop(); }

void SshdFixture::restart() {
    if (pid_ <= 0) start(port_);
}

void SshdFixture::stop() {
    if (pid_ <= 0) return;
    killSessions();
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    int st = 0;
    while (::waitpid(pid_, &st, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, &st, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (pid_t p : descendants(pid_)) ::kill(p, SIGKILL);  // stragglers reparented meanwhile are not ours
    pid_ = -1;
}

int SshdFixture::killSessions() {
    int n = 0;
    // Kill until none is left: a session may fork while we look.
    for (int round = 0; round < 5; ++round) {
        const auto ds = descendants(pid_);
        if (ds.empty()) break;
        for (pid_t p : ds)
            if (::kill(p, SIGKILL) == 0) ++n;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return n;
}

int SshdFixture::sessionProcesses() const { return static_cast<int>(descendants(pid_).size()); }

std::vector<pid_t> SshdFixture::sessionProcessesWithArgument(const std::string& arg) const {
    std::vector<pid_t> found;
    for (pid_t p : descendants(pid_)) {
        const std::string cmdline = slurp("/proc/" + std::to_string(p) + "/cmdline");  // NUL-separated arguments
        const std::string nul(1, '\0');
        const size_t first = cmdline.find(nul);
        if (first == std::string::npos) continue;
        if ((nul + cmdline.substr(first + 1)).find(nul + arg + nul) != std::string::npos) found.push_back(p);
    }
    return found;
}

std::vector<pid_t> SshdFixture::connectionProcesses() const {
    std::vector<pid_t> found;
    for (const auto& [child, parent] : parents())
        if (parent == pid_) found.push_back(child);
    return found;
}

std::string SshdFixture::log() const { return slurp(logFile_); }

std::string SshdFixture::knownHostsLine() const {
    std::istringstream pub(slurp(hostKeyPub()));
    std::string type, key;
    pub >> type >> key;
    return "[127.0.0.1]:" + std::to_string(port_) + " " + type + " " + key + "\n";
}

std::string SshdFixture::fingerprint() const {
    std::istringstream ss(shellOutput("ssh-keygen -lf " + q(hostKeyPub())));
    std::string bits, fp;
    ss >> bits >> fp;
    return fp;
}

}  // namespace streetgan::test
