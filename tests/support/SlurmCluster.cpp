#include "support/SlurmCluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace streetgan::test {

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string quoted(const std::string& s) {
    std::string r = "'";
    for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return r + "'";
}

// A port no one listens on now, on every address (slurmctld and slurmd bind the wildcard
// address). Another process may take it before the daemon does: start() retries on new ports.
int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot bind a free port");
    }
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

std::string tail(const std::string& text, int lines) {
    size_t at = text.size();
    for (int n = 0; n <= lines && at > 0; ++n) {
        const size_t nl = text.rfind('\n', at - 1);
        if (nl == std::string::npos) return text;
        at = nl;
    }
    return text.substr(at == 0 ? 0 : at + 1);
}

std::string hostName() {
    char buf[256] = {};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

bool portFree(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return free;
}

// The first job id of a cluster: random in 1000..18999, with the rendezvous ports its next 50
// jobs derive (20000 + id % 20000, base/slurm/SlurmStepEnv) free now. Clusters of tests that run
// at the same time then hand out different ids: counting from 1, their first 2-rank jobs would
// all meet on port 20001.
int chooseFirstJobId() {
    std::random_device device;
    std::mt19937 random(device() ^ static_cast<unsigned>(::getpid()));
    int base = 0;
    for (int attempt = 0; attempt < 50; ++attempt) {
        base = 1000 + static_cast<int>(random() % 18000);
        bool free = true;
        for (int i = 0; i < 50 && free; ++i) free = portFree(20000 + base + i);
        if (free) break;
    }
    return base;
}

bool alive(pid_t pid) { return pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == 0; }

// SIGTERM, then SIGKILL once `grace` has passed; waits for the child.
void stopChild(pid_t& pid, std::chrono::seconds grace) {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (::waitpid(pid, nullptr, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid = -1;
}

const char* const kEndedStates[] = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "DEADLINE", "BOOT_FAIL", "PREEMPTED"};

}  // namespace

SlurmCluster::SlurmCluster(const std::string& dir, const Options& options) : dir_(dir), options_(options) {
    conf_ = dir_ + "/slurm.conf";
    node_ = hostName();
    mungeSocket_ = dir_ + "/munge.socket";
    if (options_.cpus <= 0) options_.cpus = std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
    firstJobId_ = chooseFirstJobId();
    for (const char* sub : {"/state", "/spool"}) ::mkdir((dir_ + sub).c_str(), 0700);

    // A key of our own (munged wants it readable by its user alone), so that no system munged
    // and no other test's cluster can vouch for our messages.
    const std::string key = dir_ + "/munge.key";
    {
        std::ifstream random("/dev/urandom", std::ios::binary);
        std::string bytes(1024, '\0');
        random.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        std::ofstream out(key, std::ios::binary | std::ios::trunc);
        out << bytes;
    }
    ::chmod(key.c_str(), 0400);
    // --force: munged refuses to run as root, and with a socket folder it does not trust,
    // unless forced; -F keeps it in the foreground, a child we can wait for.
    munged_ = spawn({"/usr/sbin/munged", "-F", "--force", "--key-file=" + key, "--socket=" + mungeSocket_, "--pid-file=" + dir_ + "/munged.pid",
                     "--seed-file=" + dir_ + "/munged.seed", "--log-file=" + dir_ + "/munged.log", "--num-threads=4"},
                    dir_ + "/munged.out");
    const auto mungeDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    struct stat st {};
    while (::stat(mungeSocket_.c_str(), &st) != 0) {
        if (!alive(munged_) || std::chrono::steady_clock::now() > mungeDeadline) {
            const std::string log = slurp(dir_ + "/munged.out");
            stopDaemons();
            throw std::runtime_error("munged did not start; its output:\n" + log);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }

    // The ports are free when chosen; a daemon that loses one to another process exits, and the
    // cluster starts again on new ones.
    std::string why;
    for (int attempt = 0; attempt < 4; ++attempt) {
        writeConfig(freePort(), freePort());
        slurmctld_ = spawn({"/usr/sbin/slurmctld", "-D", "-i", "-f", conf_}, dir_ + "/slurmctld.out");
        slurmd_ = spawn({"/usr/sbin/slurmd", "-D", "-f", conf_}, dir_ + "/slurmd.out");
        if (waitForIdle(std::chrono::seconds(60))) return;
        why = logs(30);
        stopChild(slurmd_, std::chrono::seconds(10));
        stopChild(slurmctld_, std::chrono::seconds(10));
    }
    stopDaemons();
    throw std::runtime_error("the Slurm test cluster in " + dir_ + " did not come up (node not idle); logs:\n" + why);
}

SlurmCluster::~SlurmCluster() {
    // The jobs first, while slurmctld can still end them (their steps' processes are not our
    // children), then the daemons, then whatever a job left behind.
    if (alive(slurmctld_)) {
        run("scancel --user=\"$(id -un)\" >/dev/null 2>&1");
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < deadline) {
            const Result r = run("squeue -h -t running,completing,configuring,requeued -o %i 2>/dev/null");
            if (r.code != 0 || r.output.find_first_not_of(" \n") == std::string::npos) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    stopDaemons();
    killStrays();
}

void SlurmCluster::writeConfig(int ctldPort, int slurmdPort) {
    std::ofstream c(conf_, std::ios::trunc);
    c << "# A one-node test cluster of tests/support/SlurmCluster (written by the test; removed with it)\n"
      << "ClusterName=streetgan-test\nSlurmctldHost=" << node_ << "\nSlurmctldPort=" << ctldPort << "\nSlurmdPort=" << slurmdPort << "\n"
      << "SlurmUser=" << (::geteuid() == 0 ? "root" : std::string(std::getenv("USER") ? std::getenv("USER") : "root"))
      << "\n"
      // our munged: its socket, never the system's; cred_expire is also the wait of a requeued
      // job before it may start again (Slurm's default 120 s would make every requeue test slow)
      << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << mungeSocket_ << ",cred_expire=" << options_.credExpire << "\n"
      << "StateSaveLocation=" << dir_ << "/state\nSlurmdSpoolDir=" << dir_ << "/spool\n"
      << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\nSlurmdPidFile=" << dir_ << "/slurmd.pid\n"
      << "SlurmctldLogFile=" << dir_ << "/slurmctld.log\nSlurmdLogFile=" << dir_
      << "/slurmd.log\nSlurmctldDebug=info\nSlurmdDebug=info\n"
      // no cgroups (a container has none to give) and no accounting database
      << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
      << "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\nMpiDefault=none\nMailProg=/bin/true\n"
      << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      // schedule at submission (batch_sched_delay=0) and then every second (sched_interval, 60 by
      // default: a requeued job would wait up to a minute after its BeginTime)
      << "SchedulerType=sched/builtin\nSchedulerParameters=batch_sched_delay=0,sched_interval=1\n"
      // the node comes back by itself after a restart; a busy 2-core machine must not make it
      // look dead (SlurmdTimeout) or a message time out
      << "ReturnToService=2\nSlurmdTimeout=300\nSlurmctldTimeout=120\nMessageTimeout=30\n"
      // finished jobs stay in `scontrol show job` (there is no sacct here) for an hour
      << "JobRequeue=" << (options_.jobRequeue ? 1 : 0) << "\nMinJobAge=3600\nKillWait=10\nInactiveLimit=0\nFirstJobId=" << firstJobId_
      << "\n"
      // a node with more CPUs than this machine has is not drained
      << "SlurmdParameters=config_overrides\nDebugFlags=NO_CONF_HASH\n"
      << "NodeName=" << node_ << " CPUs=" << options_.cpus << " State=UNKNOWN\n"
      << "PartitionName=debug Nodes=" << node_ << " Default=YES MaxTime=" << options_.maxTime << " State=UP\n";
    if (!options_.secondPartition.empty()) c << "PartitionName=" << options_.secondPartition << " Nodes=" << node_ << " MaxTime=INFINITE State=UP\n";
    for (const std::string& line : options_.extraConfig) c << line << "\n";
}

pid_t SlurmCluster::spawn(const std::vector<std::string>& argv, const std::string& logFile) const {
    // Everything the child needs is built before fork (the test may have threads).
    std::vector<std::string> envStrings;
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "SLURM_", 6) != 0) envStrings.emplace_back(*e);  // no stray SLURM_* of a surrounding job
    envStrings.push_back("SLURM_CONF=" + conf_);
    std::vector<char*> envp, args;
    for (std::string& s : envStrings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argvCopy = argv;
    for (std::string& s : argvCopy) args.push_back(s.data());
    args.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        const int fd = ::open(logFile.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        const int devnull = ::open("/dev/null", O_RDONLY);
        ::dup2(devnull, 0);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    return pid;
}

bool SlurmCluster::waitForIdle(std::chrono::seconds deadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < end) {
        if (!alive(slurmctld_) || !alive(slurmd_)) return false;  // a port taken, or a bad setting: see the logs
        const Result r = run("sinfo -h -n " + quoted(node_) + " -o %T 2>&1");
        if (r.code == 0 && r.output == "idle\n") return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

void SlurmCluster::stopDaemons() {
    stopChild(slurmd_, std::chrono::seconds(15));
    stopChild(slurmctld_, std::chrono::seconds(15));
    stopChild(munged_, std::chrono::seconds(10));
}

// A job's processes (slurmstepd and what it ran) are no children of ours, and outlive slurmd.
// Each carries this cluster's SLURM_CONF in its environment (slurmstepd from slurmd, the tasks
// from the submitter's exported environment): those are killed, by pid.
void SlurmCluster::killStrays() const {
    const std::string mark = "SLURM_CONF=" + conf_;
    for (int round = 0; round < 3; ++round) {
        int killed = 0;
        DIR* d = ::opendir("/proc");
        if (!d) return;
        while (dirent* e = ::readdir(d)) {
            const pid_t p = static_cast<pid_t>(std::atoi(e->d_name));
            if (p <= 0 || p == ::getpid()) continue;
            const std::string env = slurp("/proc/" + std::string(e->d_name) + "/environ");  // NUL-separated
            size_t at = 0;
            while (at < env.size()) {
                const size_t end = env.find('\0', at);
                const std::string entry = env.substr(at, end == std::string::npos ? std::string::npos : end - at);
                if (entry == mark) {
                    if (::kill(p, SIGKILL) == 0) ++killed;
                    break;
                }
                if (end == std::string::npos) break;
                at = end + 1;
            }
        }
        ::closedir(d);
        if (killed == 0) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

std::map<std::string, std::string> SlurmCluster::env() const { return {{"SLURM_CONF", conf_}}; }

std::string SlurmCluster::envPrefix() const {
    std::string s;
    for (const auto& [name, value] : env()) s += name + "=" + quoted(value) + " ";
    return s;
}

SlurmCluster::Result SlurmCluster::run(const std::string& shellCommand) const {
    Result r;
    const std::string cmd = "export " + envPrefix() + "; " + shellCommand;
    FILE* f = ::popen(("{ " + cmd + "\n} 2>&1").c_str(), "r");
    if (!f) return r;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) r.output.append(buf, n);
    const int st = ::pclose(f);
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

std::string SlurmCluster::submit(const std::string& sbatchArgs) const {
    const Result r = run("sbatch --parsable " + sbatchArgs);
    std::string id = r.output.substr(0, r.output.find_first_of(";\n"));
    if (r.code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error("sbatch " + sbatchArgs + " failed (exit " + std::to_string(r.code) + "): " + r.output);
    return id;
}

std::map<std::string, std::string> SlurmCluster::job(const std::string& jobId) const {
    std::map<std::string, std::string> fields;
    const Result r = run("scontrol show job -o " + quoted(jobId) + " 2>/dev/null");
    if (r.code != 0) return fields;
    // One line of Key=Value words; a value with spaces (a command, a folder) continues in the
    // words without '=' that follow it.
    std::istringstream words(r.output.substr(0, r.output.find('\n')));
    std::string word, last;
    while (words >> word) {
        const size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0) {
            if (!last.empty()) fields[last] += " " + word;
            continue;
        }
        last = word.substr(0, eq);
        fields[last] = word.substr(eq + 1);
    }
    return fields;
}

bool SlurmCluster::waitForJobState(const std::string& jobId, const std::string& state, std::chrono::seconds deadline) const {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < end) {
        const auto fields = job(jobId);
        const auto it = fields.find("JobState");
        if (it != fields.end()) {
            if (it->second == state) return true;
            if (std::find(std::begin(kEndedStates), std::end(kEndedStates), it->second) != std::end(kEndedStates)) return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

std::string SlurmCluster::describe(const std::string& jobId) const {
    const auto fields = job(jobId);
    std::string s = "job " + jobId + ":";
    for (const char* key : {"JobState", "Reason", "ExitCode", "Restarts", "RunTime", "StdOut"})
        if (const auto it = fields.find(key); it != fields.end()) s += std::string(" ") + key + "=" + it->second;
    return s + "\n" + logs(20);
}

std::string SlurmCluster::logs(int lines) const {
    std::string s;
    for (const char* name : {"slurmctld.log", "slurmctld.out", "slurmd.log", "slurmd.out", "munged.out"}) {
        const std::string text = slurp(dir_ + "/" + name);
        if (!text.empty()) s += std::string("--- ") + name + "\n" + tail(text, lines);
    }
    return s;
}

bool SlurmCluster::installed() {
    for (const char* tool :
         {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/srun", "/usr/bin/squeue", "/usr/bin/scancel"})
        if (::access(tool, X_OK) != 0) return false;
    return true;
}

}  // namespace streetgan::test
