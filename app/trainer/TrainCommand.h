#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/run/TrainConfig.h"
#include "base/run/TrainOption.h"
#include "trainer/Command.h"

namespace streetgan {

class DaemonReadiness;

/// train --run-dir DIR [...]: a run in the foreground. Precedence of settings: defaults, then the
/// run's own run.json (with --resume), then --config FILE, then flags given on the command line.
/// SIGINT/SIGTERM stop after a checkpoint. The run holds the run lock and serves the control
/// socket (docs/attach-protocol.md) in the foreground too.
/// Under torchrun's environment (WORLD_SIZE > 1, e.g. from `launch`) it is one rank of a
/// distributed run (docs/distributed.md): only rank 0 takes the lock and serves the socket.
/// The same class is `start --detach [...]` (Mode::Start): the same options, validated here, then
/// the run goes on as a daemon (DaemonLauncher) and the command returns at once.
class TrainCommand : public Command {
public:
    enum class Mode { Train, Start };
    explicit TrainCommand(Mode mode = Mode::Train) : mode_(mode) {}
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    int runForeground(const TrainConfig& cfg, DaemonReadiness* readiness = nullptr);
    /// The flag of one TrainOption row, with its range or choices as checks, into `value`.
    template <class T>
    void addSetting(const TrainOption::Spec& o, T& value);
    nlohmann::json givenSettings() const;

    Mode mode_;
    CLI::App* app_ = nullptr;
    bool detach_ = false;
    int daemonFd_ = -1;       // hidden: set by DaemonLauncher when this process is the daemon
    double startWait_ = 300;  // start: seconds to wait for the daemon to be training
    std::string runDir_, configFile_;
    bool resume_ = false;
    double distTimeout_ = 300;          // distributed runs: seconds to wait for the other ranks
    std::string distBackend_ = "auto";  // distributed runs: DistributedContext::backendFor's choice
    TrainConfig flags_;                 // holds the flag values; only options actually given are applied
};

}  // namespace streetgan
