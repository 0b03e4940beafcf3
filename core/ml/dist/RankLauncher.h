// Starts the local ranks of a distributed run as child processes (torchrun's job for one node):
// each gets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT (and
// OMP_NUM_THREADS = cores / nproc unless set) and runs `exe args...`. Every rank's stderr is
// relayed line by line with a "[rank N] " prefix. A signal given to run() (SIGINT/SIGTERM caught
// by the caller) is forwarded to every rank, which then stop together after a final checkpoint.
// When one rank fails (non-zero exit or killed), the others get SIGTERM, then SIGKILL after
// `grace`; run() returns that rank's exit code and failure() names it with its last stderr line.
// Children die with the launcher (PR_SET_PDEATHSIG). Thread contract: one thread calls run().
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

namespace streetgan {

struct LaunchOptions {
    int nproc = 1;  ///< ranks on this node
    int nnodes = 1;
    int nodeRank = 0;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0;                      ///< 0: a free port of 127.0.0.1 (single node only)
    std::string exe;                         ///< program of every rank (the trainer itself: /proc/self/exe)
    std::vector<std::string> args;           ///< its arguments, e.g. {"train", "--run-dir", ...}
    std::chrono::milliseconds grace{10000};  ///< SIGTERM to SIGKILL for the survivors of a failure
};

class RankLauncher {
public:
    /// Throws ConfigError for inconsistent options (e.g. several nodes without a master address).
    explicit RankLauncher(LaunchOptions options);
    /// Runs the ranks to the end; `signal` (0: none) is the last signal the caller caught and is
    /// forwarded once per change. Returns 0 when every rank succeeded, else the exit code of the
    /// first rank that failed (128 + signal when it was killed). Throws IoError when a rank
    /// cannot be started.
    int run(const std::atomic<int>& signal);
    /// "rank 1 failed (exit 6): <its last stderr line>"; empty when none failed.
    const std::string& failure() const { return failure_; }
    /// The master port the ranks used (the one picked when masterPort was 0).
    int masterPort() const { return opt_.masterPort; }
    /// A port of 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
    static int freePort();

private:
    LaunchOptions opt_;
    std::string failure_;
};

}  // namespace streetgan
