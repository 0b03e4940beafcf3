#include "base/slurm/SlurmRunLauncher.h"

#include <ctime>
#include <map>

#include "base/remote/RemoteError.h"
#include "base/remote/ShellQuote.h"
#include "base/slurm/SlurmQueue.h"
#include "base/slurm/SlurmSubmission.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {
bool isFlag(const std::string& word, const std::string& flag) { return word == flag || word.rfind(flag + "=", 0) == 0; }
std::string bare(std::string p) {  // "RUN/" and "RUN" are one run
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
}
}  // namespace

SlurmRunLauncher::SlurmRunLauncher(std::unique_ptr<CommandShell> shell, TrainerCommandLine commandLine, SlurmJobSpec job)
    : ShellRunLauncher(std::move(shell), std::move(commandLine)), job_(std::move(job)), label_("Slurm on " + ShellRunLauncher::label()) {}

std::string SlurmRunLauncher::runDirOf(const std::vector<std::string>& trainArgs) {
    for (size_t i = 0; i < trainArgs.size(); ++i) {
        if (trainArgs[i] == "--run-dir") return i + 1 < trainArgs.size() ? trainArgs[i + 1] : std::string();
        if (isFlag(trainArgs[i], "--run-dir")) return trainArgs[i].substr(std::string("--run-dir=").size());
    }
    return {};
}

SlurmJobSpec SlurmRunLauncher::specFor(const SlurmJobSpec& job, const TrainerCommandLine& commandLine, const std::string& runDir,
                                       const std::vector<std::string>& trainArgs) {
    SlurmJobSpec spec = job;
    spec.runDir = bare(runDir);
    if (spec.jobName.empty()) spec.jobName = spec.runDir.substr(spec.runDir.rfind('/') + 1);
    spec.command = commandLine.slurmTrain(spec.runDir, trainArgs);
    return spec;
}

std::string SlurmRunLauncher::home() {
    if (!home_.empty()) return home_;
    const ExecResult r = shell().run("pwd -P");
    const std::string h = r.out.substr(0, r.out.find('\n'));
    if (!r.ok() || h.empty() || h[0] != '/')
        throw LaunchError(
            "cannot find the home folder on " + ShellRunLauncher::label() + " (`pwd -P` answered '" + h + "'); give the runs folder as an absolute path", {},
            false);
    return home_ = h;
}

std::string SlurmRunLauncher::start(const std::vector<std::string>& trainArgs) {
    std::string runDir = runDirOf(trainArgs);
    if (runDir.empty()) throw LaunchError("a run for " + label_ + " needs --run-dir RUN (its folder on the cluster's shared file system)", {}, false);
    if (runDir[0] != '/') runDir = home() + "/" + runDir;  // the compute nodes need absolute paths
    SlurmJobSpec spec = specFor(job_, commandLine(), runDir, trainArgs);
    // The job starts where an SSH start starts: the login folder, so relative --data paths agree.
    if (spec.workDir.empty()) spec.workDir = home();
    try {
        SlurmSubmission(shell()).submit(spec, static_cast<int64_t>(std::time(nullptr)));
    } catch (const RemoteError&) {
        throw;  // the login node did not answer: the caller reconnects
    } catch (const Error& e) {
        // Slurm's or the spec's own line (unknown partition, no sbatch there, a bad time limit).
        throw LaunchError(e.what(), e.what(), false);
    }
    return spec.runDir;
}

SlurmJobRecord SlurmRunLauncher::record(const std::string& runDir) {
    const std::string path = SlurmJobRecord::pathIn(bare(runDir));
    const ExecResult r = shell().run("cat -- " + ShellQuote::quote(path));
    if (!r.ok()) throw LaunchError(runDir + " on " + ShellRunLauncher::label() + " is no Slurm run (" + path + " cannot be read); check the path", {}, false);
    try {
        return SlurmJobRecord::parse(r.out, path);
    } catch (const Error& e) {
        throw LaunchError(e.what(), {}, false);
    }
}

RunLauncher::State SlurmRunLauncher::state(const std::string& runDir) {
    const SlurmJobRecord job = record(runDir);
    std::map<std::string, SlurmJobState> known;
    try {
        known = SlurmQueue(shell()).states({job.jobId});
    } catch (const RemoteError&) {
        throw;
    } catch (const Error& e) {
        throw LaunchError(e.what(), {}, false);
    }
    const auto it = known.find(job.jobId);
    // Queued or ended: Slurm's word is the state (a finished job's exit state is Slurm's, never a
    // guess from the files). Running, or forgotten by Slurm: the trainer's `ls` on the login node
    // combines both as every listing does (SlurmRunStates).
    if (it != known.end() && (it->second.state == SlurmJobState::kQueued || it->second.ended()))
        return State{it->second.state, it->second.reason, it->second.exitCode};
    try {
        return ShellRunLauncher::state(runDir);
    } catch (const LaunchError& e) {
        if (it == known.end() || !e.notRun()) throw;
        return State{it->second.state, it->second.reason, it->second.exitCode};  // no trainer on the login node: Slurm's word
    }
}

void SlurmRunLauncher::stop(const std::string& runDir) {
    const SlurmJobRecord job = record(runDir);
    bool cancelled = false;
    try {
        cancelled = SlurmQueue(shell()).cancel(job.jobId);
    } catch (const RemoteError&) {
        throw;
    } catch (const Error& e) {
        throw LaunchError(e.what(), {}, false);
    }
    if (!cancelled)
        throw LaunchError("Slurm job " + job.jobId + " of " + runDir + " on " + ShellRunLauncher::label() + " has already ended: nothing to stop", {}, false);
}

}  // namespace streetgan
