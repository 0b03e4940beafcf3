#include "trainer/LsCommand.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/follow/RunStatus.h"

namespace streetgan {
namespace {

std::string fixed(const std::optional<double>& v) {
    if (!v) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", *v);
    return buf;
}

}  // namespace

CLI::App* LsCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("ls", "List the runs under a folder with their state");
    a->add_option("root", root_, "Folder of run directories (or one run directory)")->required();
    a->add_flag("--json", json_, "One JSON document: {\"runs\":[...]}");
    return a;
}

int LsCommand::execute() {
    print(RunStatus::list(root_), root_, json_);
    return 0;
}

void LsCommand::print(const std::vector<RunInfo>& runs, const std::string& root, bool json) {
    if (json) {
        std::cout << RunStatus::listToJson(runs).dump(2) << std::endl;  // the one {"runs":[...]} shape (RemoteHostWorker reads it back)
        return;
    }
    if (runs.empty()) {
        std::cout << "no runs under " << root << "\n";
        return;
    }
    std::printf("%-28s %-11s %15s %9s %9s  %s\n", "RUN", "STATE", "STEP", "LOSS_D", "LOSS_G", "LAST CHECKPOINT");
    for (const auto& r : runs) {
        const std::string step = std::to_string(r.step) + (r.totalSteps > 0 ? "/" + std::to_string(r.totalSteps) : "");
        std::printf("%-28s %-11s %15s %9s %9s  %s\n", r.name.c_str(), r.state.c_str(), step.c_str(), fixed(r.lossD).c_str(), fixed(r.lossG).c_str(),
                    r.lastCheckpoint.empty() ? "-" : r.lastCheckpoint.c_str());
    }
    std::fflush(stdout);
}

}  // namespace streetgan
