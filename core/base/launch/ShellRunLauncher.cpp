#include "base/launch/ShellRunLauncher.h"

#include <nlohmann/json.hpp>

#include "base/follow/RunStatus.h"

namespace streetgan {

namespace {
std::string trimmed(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") + 1 - b);
}
// The last line of a trimmed text (a trainer's error is its last line; a shell may print more).
std::string lastLine(const std::string& text) {
    const std::string t = trimmed(text);
    const size_t nl = t.rfind('\n');
    return nl == std::string::npos ? t : trimmed(t.substr(nl + 1));
}
}  // namespace

ShellRunLauncher::ShellRunLauncher(std::unique_ptr<CommandShell> shell, TrainerCommandLine commandLine)
    : shell_(std::move(shell)), commandLine_(std::move(commandLine)), label_(shell_->label()) {}

LaunchError ShellRunLauncher::failureOn(const std::string& trainer, const std::string& label, const std::string& doing, const ExecResult& r) {
    const std::string said = trimmed(r.err);
    // 127: the shell found no such program; 126: found, not executable. Only when the trainer
    // printed nothing: a trainer's own exit code never collides then.
    if (r.exitStatus && (*r.exitStatus == 127 || *r.exitStatus == 126) && trimmed(r.out).empty())
        return LaunchError(trainer + " cannot be run on " + label + " (" + (said.empty() ? "not found" : lastLine(said)) +
                               "); install streetgan-trainer there or give the path of the one to run",
                           said.empty() ? "not found" : lastLine(said), true);
    if (!r.exitStatus)
        return LaunchError(trainer + " on " + label + " was killed before it could " + doing + "; check the host's memory and logs, then try again", said,
                           false);
    if (said.empty())
        return LaunchError(trainer + " on " + label + " could not " + doing + ": it exited with code " + std::to_string(*r.exitStatus) +
                               " and no message; run the same command there to see why",
                           said, false);
    return LaunchError(trainer + " on " + label + " could not " + doing + ": " + lastLine(said), said, false);
}

std::string ShellRunLauncher::start(const std::vector<std::string>& trainArgs) {
    const ExecResult r = shell_->run(TrainerCommandLine::shellLine(commandLine_.start(trainArgs)));
    if (!r.ok()) throw failure("start the run", r);
    std::string dir = TrainerCommandLine::startedRunDir(r.out);
    if (dir.empty())
        throw LaunchError(commandLine_.trainer() + " on " + label_ + " started no run it could name (it printed no run folder); update it there", {}, false);
    return dir;
}

RunLauncher::State ShellRunLauncher::stateOf(const RunInfo& info) {
    State s;
    s.state = info.state;
    if (info.state == "failed" || info.state == "crashed") s.reason = info.error;
    return s;
}

RunLauncher::State ShellRunLauncher::state(const std::string& runDir) {
    const ExecResult r = shell_->run(TrainerCommandLine::shellLine(commandLine_.status(runDir)));
    if (!r.ok()) throw failure("read the state of " + runDir, r);
    const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        throw LaunchError(commandLine_.trainer() + " on " + label_ + " answered `ls --json` with something else than JSON; update it there", {}, false);
    // `ls RUN` lists RUN itself (its path as given) when RUN is a run; else the runs under it.
    const auto bare = [](std::string p) {  // "RUN/" and "RUN" are one run
        while (p.size() > 1 && p.back() == '/') p.pop_back();
        return p;
    };
    for (const RunInfo& info : RunStatus::listFromJson(doc))
        if (bare(info.path) == bare(runDir)) return stateOf(info);
    throw LaunchError(runDir + " on " + label_ + " is no run folder (no run.json, events or slurm.json in it); check the path", {}, false);
}

void ShellRunLauncher::stop(const std::string& runDir) {
    const ExecResult r = shell_->run(TrainerCommandLine::shellLine(commandLine_.stop(runDir)));
    if (!r.ok()) throw failure("stop " + runDir, r);
}

}  // namespace streetgan
