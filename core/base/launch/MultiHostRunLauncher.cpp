#include "base/launch/MultiHostRunLauncher.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <thread>

#include "base/launch/LaunchError.h"
#include "base/remote/RemoteError.h"
#include "base/remote/ShellQuote.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kPoll{250};

std::string trimmed(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") + 1 - b);
}

// Rank 0's line for a rendezvous port that another program took between the pick and the bind
// (DistributedContext's message; core/ml is out of base's reach, so its words are matched here).
bool isPortInUse(const std::string& line) { return line.find("rendezvous port") != std::string::npos && line.find("is in use") != std::string::npos; }

}  // namespace

class MultiHostRunLauncher::PortInUse : public LaunchError {
public:
    using LaunchError::LaunchError;
};

MultiHostRunLauncher::MultiHostRunLauncher(std::vector<Host> hosts, const std::string& trainer, Options options)
    : hosts_(std::move(hosts)), commandLine_(trainer), options_(options) {
    if (hosts_.empty() || !hosts_[0].shell) throw ConfigError("a run across hosts needs at least one host");
    if (options_.nprocPerNode < 1 || options_.nprocPerNode > 1024)
        throw ConfigError("--nproc-per-node " + std::to_string(options_.nprocPerNode) + " is out of range: use 1..1024");
    rootShell_ = hosts_[0].shell.get();
    root_ = std::make_unique<ShellRunLauncher>(std::move(hosts_[0].shell), commandLine_);
}

MultiHostRunLauncher::~MultiHostRunLauncher() = default;

std::string MultiHostRunLauncher::label() const {
    std::string l = root_->label();
    for (size_t i = 1; i < hosts_.size(); ++i) l += ", " + hosts_[i].shell->label();
    return l;
}

std::string MultiHostRunLauncher::start(const std::vector<std::string>& trainArgs) {
    // A port is free when host 0 picks it and bound by rank 0 a moment later: another program
    // may take it in between, so one more try with a new port (a second "in use" is no accident).
    for (int attempt = 0;; ++attempt) {
        std::vector<Node> started;
        try {
            return startOnce(trainArgs, started);
        } catch (const PortInUse&) {
            killStragglers(started);
            if (attempt == 0) continue;
            throw;
        } catch (const LaunchError& e) {
            const std::vector<Node> left = killStragglers(started);
            if (started.empty()) throw;
            throw LaunchError(std::string(e.what()) + (left.empty() ? "; every node already started was stopped" : "; some ranks could not be stopped"),
                              e.trainerMessage(), e.notRun());
        } catch (const Error& e) {  // a host that cannot be reached (RemoteError) or a shell that failed
            const std::vector<Node> left = killStragglers(started);
            if (started.empty()) throw;
            throw RemoteError(std::string(e.what()) + (left.empty() ? "; every node already started was stopped" : "; some ranks could not be stopped"));
        }
    }
}

std::string MultiHostRunLauncher::startOnce(const std::vector<std::string>& trainArgs, std::vector<Node>& started) {
    const int nnodes = static_cast<int>(hosts_.size());
    std::string master = hosts_[0].address + ":0";  // node 0 picks the port on its host
    std::string runDir;
    for (int r = 0; r < nnodes; ++r) {
        const size_t h = static_cast<size_t>(r);
        const std::string line = TrainerCommandLine::shellLine(commandLine_.launchNode(options_.nprocPerNode, nnodes, r, master, trainArgs));
        const ExecResult result = shell(h).run(line);
        const std::string label = shell(h).label();
        if (!result.ok()) {
            const LaunchError e = ShellRunLauncher::failureOn(commandLine_.trainer(), label, "start node " + std::to_string(r) + " of the run", result);
            if (isPortInUse(e.trainerMessage())) throw PortInUse(e.what(), e.trainerMessage(), false);
            throw e;
        }
        const auto launched = TrainerCommandLine::detachedLaunch(result.out);
        if (!launched || (r == 0 && launched->runDir.empty()))
            throw LaunchError(commandLine_.trainer() + " on " + label + " did not say which process it started (no `launch --detach` line); update it there",
                              {}, false);
        started.push_back({h, launched->pid, launched->log});
        if (r == 0) {
            master = launched->master;
            runDir = launched->runDir;
        }
    }
    writeNodes(runDir, master, started);
    awaitStart(runDir, started);
    return runDir;
}

void MultiHostRunLauncher::awaitStart(const std::string& runDir, const std::vector<Node>& nodes) {
    // Rank 0 writes run.json once every rank has met: until then `ls RUN` finds no run there.
    const auto started = [&]() -> bool {
        try {
            const State s = root_->state(runDir);
            if (s.state == "failed" || s.state == "crashed")
                throw LaunchError("the run across " + label() + " failed as it started: " + (s.reason.empty() ? "no message" : s.reason) +
                                      " (logs: " + nodes[0].log + " on " + root_->label() + ")",
                                  s.reason, false);
            return s.state != "new";
        } catch (const LaunchError& e) {
            if (std::string(e.what()).find("is no run folder") == std::string::npos) throw;
            return false;
        }
    };
    const auto deadline = Clock::now() + options_.startWait;
    for (;;) {
        if (started()) return;
        for (const Node& n : nodes) {
            if (groupAlive(n)) continue;
            if (started()) return;  // it ended because the run is over already
            const std::string said = lastLogLine(n);
            const std::string label = shell(n.host).label();
            const std::string message = "node " + std::to_string(&n - nodes.data()) + " of the run on " + label +
                                        " ended before the run started: " + (said.empty() ? "no message" : said) + " (log: " + n.log + " on " + label + ")";
            if (isPortInUse(said)) throw PortInUse(message, said, false);
            throw LaunchError(message, said, false);
        }
        if (Clock::now() >= deadline)
            throw LaunchError("the ranks on " + label() + " did not meet within " +
                                  std::to_string(std::chrono::duration_cast<std::chrono::seconds>(options_.startWait).count()) +
                                  " s: check that every host reaches " + hosts_[0].address + " (logs: RUN/launch-node<R>.log on each host)",
                              {}, false);
        std::this_thread::sleep_for(kPoll);
    }
}

void MultiHostRunLauncher::writeNodes(const std::string& runDir, const std::string& master, const std::vector<Node>& nodes) {
    nlohmann::json doc{{"version", 1}, {"master", master}, {"nproc_per_node", options_.nprocPerNode}, {"nodes", nlohmann::json::array()}};
    for (size_t r = 0; r < nodes.size(); ++r)
        doc["nodes"].push_back({{"node_rank", r}, {"host", shell(nodes[r].host).label()}, {"pid", nodes[r].pid}, {"log", nodes[r].log}});
    const std::string path = runDir + "/" + kNodesFile;
    const ExecResult r = rootShell_->run(
        "cat > " + ShellQuote::quote(path + ".tmp") + " && mv -f " + ShellQuote::quote(path + ".tmp") + " " + ShellQuote::quote(path), doc.dump(2) + "\n");
    if (!r.ok())
        throw LaunchError("cannot write " + path + " on " + root_->label() + " (" + trimmed(r.err) + "); check the run folder's permissions there", r.err,
                          false);
}

std::vector<MultiHostRunLauncher::Node> MultiHostRunLauncher::readNodes(const std::string& runDir) {
    const std::string path = runDir + "/" + kNodesFile;
    const ExecResult r = rootShell_->run("cat " + ShellQuote::quote(path));
    if (!r.ok())
        throw LaunchError(runDir + " on " + root_->label() + " was not started across hosts (no " + kNodesFile +
                              " there): stop it with `streetgan-trainer control RUN stop` on its host",
                          trimmed(r.err), false);
    const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    const auto bad = [&](const std::string& why) {
        return LaunchError(path + " on " + root_->label() + " " + why + "; stop the ranks by hand (kill the process group in each node's entry)", {}, false);
    };
    if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array()) throw bad("is not a list of nodes (damaged?)");
    if (!doc.contains("version") || doc["version"] != 1)
        throw bad("has a version this trainer does not know (" + doc.value("version", nlohmann::json()).dump() + ")");
    std::vector<Node> nodes;
    for (const nlohmann::json& e : doc["nodes"]) {
        if (!e.is_object() || !e.contains("host") || !e["host"].is_string() || !e.contains("pid") || !e["pid"].is_number_integer() || e["pid"].get<long>() <= 1)
            throw bad("has a node without a host or a process: " + e.dump());
        Node n;
        n.pid = e["pid"].get<long>();
        n.log = e.value("log", std::string());
        const std::string host = e["host"].get<std::string>();
        bool found = false;
        for (size_t h = 0; h < hosts_.size() && !found; ++h)
            if (shell(h).label() == host) {
                n.host = h;
                found = true;
            }
        if (!found)
            throw LaunchError(
                runDir + " has a node on " + host + ", which is not among the hosts given (" + label() + "): give every host the run was started on", {},
                false);
        nodes.push_back(n);
    }
    return nodes;
}

bool MultiHostRunLauncher::groupAlive(const Node& node) {
    // Any process of the group that is not a zombie (PID 1 of a container may never reap them);
    // /proc, not ps: ps is not on every host. The group outlives its leader: ranks whose launch
    // died are still found.
    const std::string pgid = std::to_string(node.pid);
    const ExecResult r =
        shell(node.host).run("for s in /proc/[0-9]*/stat; do read -r l 2>/dev/null < \"$s\" || continue; r=\"${l##*) }\"; set -- $r; [ \"$3\" = " + pgid +
                             " ] && [ \"$1\" != Z ] && { echo alive; exit 0; }; done; echo gone");
    if (!r.ok()) throw LaunchError("cannot look for the ranks on " + shell(node.host).label() + " (" + trimmed(r.err) + ")", r.err, false);
    return trimmed(r.out) == "alive";
}

void MultiHostRunLauncher::signalGroup(const Node& node, const char* signal) {
    shell(node.host).run(std::string("kill -") + signal + " -" + std::to_string(node.pid) + " 2>/dev/null; true");
}

std::vector<MultiHostRunLauncher::Node> MultiHostRunLauncher::awaitEnd(const std::vector<Node>& nodes, std::chrono::milliseconds wait) {
    const auto deadline = Clock::now() + wait;
    for (;;) {
        std::vector<Node> alive;
        for (const Node& n : nodes)
            if (groupAlive(n)) alive.push_back(n);
        if (alive.empty() || Clock::now() >= deadline) return alive;
        std::this_thread::sleep_for(kPoll);
    }
}

std::vector<MultiHostRunLauncher::Node> MultiHostRunLauncher::killStragglers(const std::vector<Node>& nodes) {
    std::vector<Node> left;
    for (const Node& n : nodes) {
        try {
            if (!groupAlive(n)) continue;
            signalGroup(n, "TERM");  // launch forwards it: the ranks stop at their next step
            if (!awaitEnd({n}, options_.killGrace).empty()) {
                signalGroup(n, "KILL");
                if (!awaitEnd({n}, options_.killGrace).empty()) left.push_back(n);
            }
        } catch (const Error&) {
            left.push_back(n);  // that host is gone: nothing more to do from here
        }
    }
    return left;
}

std::string MultiHostRunLauncher::lastLogLine(const Node& node) {
    const ExecResult r = shell(node.host).run("tail -n 40 " + ShellQuote::quote(node.log));
    // launch's own failure line ("streetgan-trainer: rank 1 failed (exit 6): ...") when there is
    // one, else the last line.
    std::string last, ours;
    size_t start = 0;
    const std::string& text = r.out;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string::npos) nl = text.size();
        const std::string line = trimmed(text.substr(start, nl - start));
        if (!line.empty()) last = line;
        if (line.rfind("streetgan-trainer: ", 0) == 0) ours = line;
        start = nl + 1;
    }
    return ours.empty() ? last : ours;
}

RunLauncher::State MultiHostRunLauncher::state(const std::string& runDir) { return root_->state(runDir); }

void MultiHostRunLauncher::stop(const std::string& runDir) {
    const std::vector<Node> nodes = readNodes(runDir);
    // Rank 0's stop: every rank stops at the same step after rank 0's checkpoint. A run that is
    // no longer alive refuses it; its nodes are still looked for (a rank left hanging).
    std::optional<LaunchError> refused;
    try {
        root_->stop(runDir);
    } catch (const LaunchError& e) {
        refused = e;
    }
    std::vector<Node> alive = awaitEnd(nodes, refused ? std::chrono::milliseconds(0) : options_.stopWait);
    if (refused && alive.empty()) throw *refused;
    alive = killStragglers(alive);
    if (!alive.empty())
        throw LaunchError("ranks of " + runDir + " are still running on " + shell(alive.front().host).label() + " after SIGKILL (process group " +
                              std::to_string(alive.front().pid) + "); end them there by hand",
                          {}, false);
}

}  // namespace streetgan
