// The part of a RunLauncher that every target reached through a shell shares: start() runs the
// trainer's `start --detach` (TrainerCommandLine) through the CommandShell and returns the run
// directory it printed, stop() runs `control RUN stop`, state() runs `ls RUN --json`, and a
// command that failed becomes one LaunchError naming the target (the trainer's message, "not
// installed there", "killed"). LocalRunLauncher and SshRunLauncher are this with their shell.
//
// Thread contract: RunLauncher's (one thread at a time; the shell's own rule too).
#pragma once

#include <memory>

#include "base/launch/CommandShell.h"
#include "base/launch/LaunchError.h"
#include "base/launch/RunLauncher.h"
#include "base/launch/TrainerCommandLine.h"

namespace streetgan {

struct RunInfo;

class ShellRunLauncher : public RunLauncher {
public:
    ShellRunLauncher(std::unique_ptr<CommandShell> shell, TrainerCommandLine commandLine);
    std::string label() const override { return label_; }
    std::string start(const std::vector<std::string>& trainArgs) override;
    State state(const std::string& runDir) override;
    void stop(const std::string& runDir) override;

    const TrainerCommandLine& commandLine() const { return commandLine_; }
    /// A run's state as RunStatus read it (the reason: its last error, once it failed or crashed).
    static State stateOf(const RunInfo& info);
    /// The LaunchError for a trainer command (`trainer`) on the target `label` that did not
    /// succeed: `doing` says what it was for ("start the run", "stop RUN").
    static LaunchError failureOn(const std::string& trainer, const std::string& label, const std::string& doing, const ExecResult& result);

protected:
    CommandShell& shell() { return *shell_; }
    /// failureOn() for this launcher's trainer and target.
    LaunchError failure(const std::string& doing, const ExecResult& result) const { return failureOn(commandLine_.trainer(), label_, doing, result); }

private:
    std::unique_ptr<CommandShell> shell_;
    TrainerCommandLine commandLine_;
    std::string label_;
};

}  // namespace streetgan
