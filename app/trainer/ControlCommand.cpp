#include "trainer/ControlCommand.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/daemon/ControlSocket.h"
#include "base/daemon/TrainControl.h"
#include "base/launch/LocalShell.h"
#include "base/slurm/SlurmJobRecord.h"
#include "base/slurm/SlurmQueue.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {
// `stop` of a run submitted to Slurm is scancel, from any node of the cluster: rank 0's control
// socket is on its compute node, and a queued job has none. Slurm sends the ranks SIGTERM, on
// which the trainer stops at the next step and checkpoints (docs/slurm.md).
int cancelSlurmJob(const std::string& runDir, const SlurmJobRecord& job) {
    LocalShell shell;
    if (!SlurmQueue(shell).cancel(job.jobId)) {
        std::cerr << "streetgan-trainer: Slurm job " << job.jobId << " of " << runDir << " has already ended: nothing to stop\n";
        return static_cast<int>(ExitCode::Config);
    }
    std::cout << nlohmann::json({{"ok", true}, {"slurm_job", job.jobId}, {"scancel", true}}).dump() << std::endl;
    return 0;
}
}  // namespace

CLI::App* ControlCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("control", "Send a command to a running trainer: pause, resume, stop, checkpoint-now, sample-now, set-lr VALUE");
    a->add_option("run", runDir_, "Run directory")->required();
    a->add_option("command", cmd_, "pause | resume | stop | checkpoint-now | sample-now | set-lr")->required()->check(CLI::IsMember(TrainControl::commands()));
    a->add_option("value", value_, "set-lr: the new learning rate");
    return a;
}

int ControlCommand::execute() {
    nlohmann::json request = {{"cmd", cmd_}};
    if (cmd_ == "set-lr") {
        double lr = 0;
        size_t used = 0;
        try {
            lr = std::stod(value_, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (value_.empty() || used != value_.size() || !std::isfinite(lr))
            throw ConfigError("set-lr needs a learning rate, e.g. `control RUN set-lr 0.0001` (got '" + value_ + "')");
        request["value"] = lr;
    } else if (!value_.empty()) {
        throw ConfigError("'" + cmd_ + "' takes no value (got '" + value_ + "')");
    }
    if (cmd_ == "stop")
        if (const auto job = SlurmJobRecord::read(runDir_)) return cancelSlurmJob(runDir_, *job);
    const nlohmann::json reply = ControlSocket::request(ControlSocket::pathIn(runDir_), request);
    std::cout << reply.dump() << std::endl;
    if (reply.value("ok", false)) return 0;
    std::cerr << "streetgan-trainer: the trainer refused '" << cmd_ << "': " << reply.value("error", std::string("no reason given")) << "\n";
    return static_cast<int>(ExitCode::Config);
}

}  // namespace streetgan
