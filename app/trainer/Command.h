// One streetgan-trainer subcommand: declares its options on a CLI11 sub-app, then runs.
// execute() throws streetgan errors; TrainerCli turns them into one stderr line and an exit code.
#pragma once

namespace CLI {
class App;
}

namespace streetgan {

class Command {
public:
    virtual ~Command() = default;
    /// Adds the subcommand and its options to `parent`; returns the sub-app.
    virtual CLI::App* setup(CLI::App& parent) = 0;
    /// Runs after a successful parse; returns the process exit code.
    virtual int execute() = 0;
};

}  // namespace streetgan
