#include "trainer/SubmitCommand.h"

#include <CLI/CLI.hpp>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/launch/LocalShell.h"
#include "base/launch/TrainerCommandLine.h"
#include "base/slurm/SlurmJobScript.h"
#include "base/slurm/SlurmSubmission.h"
#include "base/util/Errors.h"
#include "base/util/Paths.h"

namespace streetgan {
namespace fs = std::filesystem;

namespace {

// run-YYYYmmdd-HHMMSS (local time), with -2, -3... when a run of that name exists already.
std::string defaultName(const fs::path& root, std::time_t now) {
    std::tm local{};
    ::localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "run-%Y%m%d-%H%M%S", &local);
    std::string name = stamp;
    std::error_code ec;
    for (int n = 2; fs::exists(root / name, ec); ++n) name = std::string(stamp) + "-" + std::to_string(n);
    return name;
}

}  // namespace

CLI::App* SubmitCommand::setup(CLI::App& parent) {
    auto* a = parent.add_subcommand("submit",
                                    "Submit a training run to Slurm from the login node: submit --runs ROOT --nodes N --tasks-per-node T -- <train options>");
    a->add_option("--runs", root_, "Folder of run directories, on the file system the compute nodes share")->required();
    a->add_option("--name", name_, "The run's folder under --runs and the job's name (default: run-<date>-<time>)");
    a->add_option("--nodes", nodes_, "Nodes of the job")->required()->check(CLI::Range(1, 100000));
    a->add_option("--tasks-per-node", tasksPerNode_, "Ranks (srun tasks) per node")->required()->check(CLI::Range(1, 4096));
    a->add_option("--gpus-per-node", gpusPerNode_, "GPUs per node (one per rank on it; 0: a CPU job)")->check(CLI::Range(0, 1024));
    a->add_option("--cpus-per-task", cpusPerTask_, "CPUs per rank (default: Slurm's, one); OMP_NUM_THREADS follows it")->check(CLI::Range(1, 4096));
    a->add_option("--time", time_, "Time limit, HH:MM:SS (or Slurm's other forms; default: the partition's)");
    a->add_option("--partition", partition_, "Partition (default: the cluster's default partition)");
    a->add_option("--account", account_, "Account to charge (default: yours)");
    a->add_option("--sbatch-line", sbatchLines_, "An extra #SBATCH option, e.g. '--mem=16G' (repeatable)");
    a->add_option("--signal-seconds", signalSeconds_, "Seconds before the time limit at which the ranks checkpoint and the job requeues itself")
        ->check(CLI::Range(1, 65535));
    a->add_flag("--json", json_, "Print {\"run_dir\", \"script\", \"slurm\": the slurm.json record} instead of the run directory");
    a->add_option("train", trainOptions_, "The train options every rank runs with, after --: --preset P --data D --steps N ...");
    return a;
}

int SubmitCommand::execute() {
    const fs::path root = fs::absolute(root_).lexically_normal();  // the compute nodes need absolute paths
    const std::time_t now = std::time(nullptr);
    const std::string name = name_.empty() ? defaultName(root, now) : name_;
    if (name.find('/') != std::string::npos || name == "." || name == "..")
        throw ConfigError("--name '" + name + "' is not a folder name: give the run's name without '/' (it is made under --runs)");
    SlurmJobSpec spec;
    spec.runDir = (root / name).string();
    spec.jobName = name;
    spec.nodes = nodes_;
    spec.tasksPerNode = tasksPerNode_;
    spec.gpusPerNode = gpusPerNode_;
    spec.cpusPerTask = cpusPerTask_;
    spec.timeLimit = time_;
    spec.partition = partition_;
    spec.account = account_;
    spec.extraLines = sbatchLines_;
    spec.signalSeconds = signalSeconds_;
    spec.workDir = fs::current_path().string();  // relative paths in the train options mean what they mean here
    spec.command = TrainerCommandLine(Paths::selfExecutable()).slurmTrain(spec.runDir, trainOptions_);

    LocalShell shell;  // this computer is the login node; SLURM_CONF and PATH as the caller has them
    const SlurmJobRecord record = SlurmSubmission(shell).submit(spec, static_cast<int64_t>(now));
    if (json_) {
        const nlohmann::json j = {{"run_dir", spec.runDir}, {"script", spec.runDir + "/" + SlurmJobScript::kFileName}, {"slurm", record.toJson()}};
        std::cout << j.dump(2) << std::endl;
    } else {
        std::cerr << "streetgan-trainer: submitted as Slurm job " << record.jobId << "; `streetgan-trainer ls " << root.string()
                  << "` shows its state, `streetgan-trainer control RUN stop` cancels it\n";
        std::cout << spec.runDir << std::endl;
    }
    return 0;
}

}  // namespace streetgan
