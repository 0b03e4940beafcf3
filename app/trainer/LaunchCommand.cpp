#include "trainer/LaunchCommand.h"

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/daemon/DetachedProcess.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"
#include "ml/dist/RankLauncher.h"
#include "trainer/FiniteNumber.h"

namespace streetgan {
namespace {

std::atomic<int> gSignal{0};
void onSignal(int sig) { gSignal.store(sig); }

std::string absolutePath(const std::string& p) {
    std::string a = std::filesystem::absolute(p).lexically_normal().string();
    while (a.size() > 1 && a.back() == '/') a.pop_back();
    return a;
}

// The --run-dir of the ranks' `train` command ("" when it has none).
std::string runDirOf(const std::vector<std::string>& command) {
    std::string dir;
    for (size_t i = 0; i < command.size(); ++i) {
        if (command[i] == "--run-dir" && i + 1 < command.size()) dir = command[i + 1];
        if (command[i].rfind("--run-dir=", 0) == 0) dir = command[i].substr(10);
    }
    return dir;
}

}  // namespace

CLI::App* LaunchCommand::setup(CLI::App& parent) {
    auto* a =
        parent.add_subcommand("launch", "Start the ranks of a distributed (c10d) training run on this node: launch --nproc N -- train ... (or -- dist-check)");
    a->add_option("--nproc", nproc_, "Ranks (processes) on this node")->required()->check(CLI::Range(1, 1024));
    a->add_option("--nnodes", nnodes_, "Nodes of the run")->check(CLI::Range(1, 65536));
    a->add_option("--node-rank", nodeRank_, "This node's index, 0..nnodes-1")->check(CLI::Range(0, 65535));
    a->add_option("--master", master_, "ADDR:PORT of node 0's rendezvous (required with --nnodes > 1; default: a free port of 127.0.0.1)");
    a->add_option("--grace", grace_, "Seconds the other ranks get to exit after one fails, before SIGKILL")
        ->check(FiniteNumber())
        ->check(CLI::Range(0.0, 3600.0));
    a->add_flag("--detach", detach_, "Run as a daemon of its own session (one node of a run across hosts); prints {pid, log, master, run_dir}");
    a->add_option("--log", log_, "With --detach: the launch's log (default RUN/launch-node<R>.log of train's --run-dir)");
    a->add_option("command", command_, "The trainer command every rank runs, after --: train --run-dir DIR ...")->required();
    return a;
}

int LaunchCommand::execute() {
    LaunchOptions o;
    o.nproc = nproc_;
    o.nnodes = nnodes_;
    o.nodeRank = nodeRank_;
    o.grace = std::chrono::milliseconds(static_cast<int64_t>(grace_ * 1000));
    if (!master_.empty()) {
        const auto colon = master_.rfind(':');
        int port = 0;
        // Port 0 asks node 0 of a detached launch to pick a free port here (it prints which).
        const int lowest = detach_ && nodeRank_ == 0 ? 0 : 1;
        try {
            if (colon == std::string::npos || colon == 0) throw std::invalid_argument("no port");
            size_t used = 0;
            port = std::stoi(master_.substr(colon + 1), &used);
            if (used != master_.size() - colon - 1 || port < lowest || port > 65535) throw std::invalid_argument("bad port");
        } catch (const std::exception&) {
            throw ConfigError("--master '" + master_ + "' is not ADDR:PORT: give node 0's address and a free port, e.g. 10.0.0.1:29500");
        }
        o.masterAddr = master_.substr(0, colon);
        o.masterPort = port;
    }
    if (command_.empty() || (command_.front() != "train" && command_.front() != "dist-check"))
        throw ConfigError("launch runs `train` (or `dist-check`) on every rank: give it after --, e.g. launch --nproc 2 -- train --run-dir DIR");
    o.args = command_;
    o.exe = Paths::selfExecutable();
    if (detach_) {
        // The port is picked here, not in the daemon, so that the line printed names it.
        // Several nodes without --master stay refused (below): 127.0.0.1 is no address for them.
        if (o.masterPort == 0 && nodeRank_ == 0 && (nnodes_ == 1 || !master_.empty())) o.masterPort = RankLauncher::freePort();
        const RankLauncher check(o);  // the options' refusals, before anything is started
        master_ = o.masterAddr + ":" + std::to_string(o.masterPort);
        return detach();
    }

    gSignal = 0;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    RankLauncher launcher(std::move(o));
    const int code = launcher.run(gSignal);
    if (!launcher.failure().empty()) std::cerr << "streetgan-trainer: " << launcher.failure() << "\n";
    return code;
}

int LaunchCommand::detach() {
    const std::string runDir = command_.front() == "train" && !runDirOf(command_).empty() ? absolutePath(runDirOf(command_)) : std::string();
    if (command_.front() == "train" && runDirOf(command_).empty())
        throw ConfigError("launch --detach -- train needs --run-dir DIR: the run's folder (rank 0's), where this node's log goes too");
    if (log_.empty() && runDir.empty())
        throw ConfigError("launch --detach needs --log FILE for `" + command_.front() + "` (only a train run has a folder for it: RUN/launch-node<R>.log)");
    const std::string log = absolutePath(log_.empty() ? runDir + "/launch-node" + std::to_string(nodeRank_) + ".log" : log_);
    // On a node other than 0 this makes RUN with the log alone in it: listings skip such a folder
    // (no run.json, events or slurm.json), and on a shared file system it is rank 0's own run.
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(log).parent_path(), ec);
    DetachedProcess node(log, 0644, "the detached launch's log", "give a writable --log FILE");
    // The daemon is this launch without --detach and --log. Once forked, not twice: its pid is the
    // process group of the launch and its ranks (stop() signals that group).
    const std::string exe = Paths::selfExecutable();
    std::vector<std::string> args{
        exe,        "launch", "--nproc", std::to_string(nproc_), "--nnodes", std::to_string(nnodes_), "--node-rank", std::to_string(nodeRank_),
        "--master", master_,  "--grace", std::to_string(grace_), "--"};
    args.insert(args.end(), command_.begin(), command_.end());
    const pid_t child = node.start(args, DetachedProcess::Forks::Once, DetachedProcess::Readiness::Closed, "cannot execute the trainer binary");
    // The pipe closes on exec: end of file and nothing read means the daemon runs.
    const std::string said = node.readAll();
    if (!said.empty()) throw IoError("the detached launch did not start: " + said + " (" + exe + ")");
    nlohmann::json line{{"pid", child}, {"log", log}, {"master", master_}, {"node_rank", nodeRank_}};
    if (!runDir.empty()) line["run_dir"] = runDir;
    std::cout << line.dump() << std::endl;
    return 0;
}

}  // namespace streetgan
