// One run across several hosts without a scheduler: node r of the run is a detached `launch` on
// host r (TrainerCommandLine::launchNode: nproc ranks per node, ranks = nodes x nproc), and host
// 0 is the rendezvous. start() starts node 0 first, which picks a free port there (`--master
// ADDR:0`, ADDR being host 0's address as the others reach it), then the other nodes with that
// ADDR:PORT, records the nodes in RUN/nodes.json on host 0, and waits until rank 0's run has
// started (its state is no longer "no run yet") or a node ended; a port taken in between (rank 0
// says "rendezvous port ... in use") is retried once with another. Only rank 0 writes a run
// directory (docs/distributed.md): the run shows once, as host 0's. A node that cannot be
// started, or that ends before the run starts, is one line naming its host, and every node
// already started is stopped (SIGTERM to its process group, SIGKILL after the grace).
//
// state() is rank 0's (ShellRunLauncher's `ls RUN --json` on host 0). stop() sends rank 0's
// control stop (every rank stops at the same step, rank 0 checkpoints), waits for every node's
// process group to end on its host, and signals the groups still there after `stopWait`
// (SIGTERM, then SIGKILL after `killGrace`): no rank is left on any host. stop() finds the nodes
// in RUN/nodes.json, so a launcher made later (another process) stops a run it did not start,
// given the same hosts.
//
// Thread contract: RunLauncher's (one thread at a time, never the GUI thread: start() and stop()
// wait for remote processes, seconds to minutes). Each host's shell is used by that one thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/launch/CommandShell.h"
#include "base/launch/RunLauncher.h"
#include "base/launch/ShellRunLauncher.h"
#include "base/launch/TrainerCommandLine.h"

namespace streetgan {

class MultiHostRunLauncher : public RunLauncher {
public:
    struct Host {
        std::unique_ptr<CommandShell> shell;
        /// How the other hosts reach this one (an SSH target's host name); host 0's is the
        /// rendezvous address every rank is given as MASTER_ADDR.
        std::string address;
    };
    struct Options {
        int nprocPerNode = 1;
        /// How long start() waits for the ranks to meet and rank 0's run to start.
        std::chrono::milliseconds startWait{std::chrono::seconds(300)};
        /// How long stop() waits for the ranks to end after rank 0's control stop.
        std::chrono::milliseconds stopWait{std::chrono::seconds(120)};
        /// SIGTERM to SIGKILL for a node that is still there.
        std::chrono::milliseconds killGrace{std::chrono::seconds(5)};
    };
    /// The file in rank 0's run directory that names the nodes (hosts, process groups, logs).
    static constexpr const char* kNodesFile = "nodes.json";

    /// `hosts`: at least one; `trainer`: the program on every host (a path, or a name on its PATH).
    /// Throws ConfigError for no host or an nproc out of 1..1024.
    MultiHostRunLauncher(std::vector<Host> hosts, const std::string& trainer, Options options);
    ~MultiHostRunLauncher() override;
    /// The hosts' labels, host 0 first: "a@h1:22, b@h2:22".
    std::string label() const override;
    std::string start(const std::vector<std::string>& trainArgs) override;
    State state(const std::string& runDir) override;
    /// Returns once every rank has ended on every host (see above). Throws LaunchError when the run
    /// has no nodes.json on host 0, names a host this launcher was not given, or was not alive.
    void stop(const std::string& runDir) override;

private:
    struct Node {
        size_t host = 0;  ///< index into hosts_
        long pid = 0;     ///< the detached launch: its process group holds its ranks
        std::string log;  ///< on that host
    };
    class PortInUse;

    std::string startOnce(const std::vector<std::string>& trainArgs, std::vector<Node>& started);
    /// Waits for rank 0's run to start or a node to end (throws then); true once it started.
    void awaitStart(const std::string& runDir, const std::vector<Node>& nodes);
    void writeNodes(const std::string& runDir, const std::string& master, const std::vector<Node>& nodes);
    std::vector<Node> readNodes(const std::string& runDir);
    bool groupAlive(const Node& node);
    void signalGroup(const Node& node, const char* signal);
    /// Waits until no node's group is alive or `wait` passes; returns the nodes still alive.
    std::vector<Node> awaitEnd(const std::vector<Node>& nodes, std::chrono::milliseconds wait);
    /// SIGTERM, then SIGKILL after the grace, to every node still alive; errors swallowed (used
    /// while another error is on its way).
    std::vector<Node> killStragglers(const std::vector<Node>& nodes);
    /// The last line a node's launch wrote (its failure line when it failed).
    std::string lastLogLine(const Node& node);
    CommandShell& shell(size_t host) { return host == 0 ? *rootShell_ : *hosts_[host].shell; }

    std::vector<Host> hosts_;  // hosts_[0].shell is moved into root_
    CommandShell* rootShell_ = nullptr;
    std::unique_ptr<ShellRunLauncher> root_;  // host 0: rank 0's state and control stop
    TrainerCommandLine commandLine_;
    Options options_;
};

}  // namespace streetgan
