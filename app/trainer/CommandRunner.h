// Parses a streetgan-trainer command line against a set of subcommands, runs the one given and
// turns its errors into one stderr line and an exit code. Shared by the full trainer (TrainerCli)
// and its LibTorch-free front (TrainerFront), so both answer alike.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trainer/Command.h"

namespace streetgan {

class CommandRunner {
public:
    /// Names an error kind the runner does not know (e.g. LibTorch's): the stderr text for it, or
    /// nothing to let the runner describe it.
    using ErrorText = std::function<std::optional<std::string>(const std::exception&)>;

    explicit CommandRunner(const std::string& description);
    ~CommandRunner();
    void add(std::unique_ptr<Command> command);
    void add(std::vector<std::unique_ptr<Command>> commands);
    /// Whether `name` is one of the added subcommands.
    bool has(const std::string& name) const;
    /// The top-level app (for flags such as --version).
    CLI::App& app();
    int run(int argc, char** argv, const ErrorText& errorText = {});

private:
    std::unique_ptr<CLI::App> app_;
    std::vector<std::unique_ptr<Command>> commands_;
    std::vector<CLI::App*> subs_;
};

}  // namespace streetgan
