#include "trainer/LaunchCommand.h"

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "base/util/Errors.h"
#include "base/util/Paths.h"
#include "ml/dist/RankLauncher.h"
#include "trainer/FiniteNumber.h"

namespace streetgan {
namespace {

std::atomic<int> gSignal{0};
void onSignal(int sig) { gSignal.store(sig); }

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
        try {
            if (colon == std::string::npos || colon == 0) throw std::invalid_argument("no port");
            size_t used = 0;
            port = std::stoi(master_.substr(colon + 1), &used);
            if (used != master_.size() - colon - 1 || port < 1 || port > 65535) throw std::invalid_argument("bad port");
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

    gSignal = 0;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    RankLauncher launcher(std::move(o));
    const int code = launcher.run(gSignal);
    if (!launcher.failure().empty()) std::cerr << "streetgan-trainer: " << launcher.failure() << "\n";
    return code;
}

}  // namespace streetgan
