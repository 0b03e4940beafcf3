#include "trainer/CommandRunner.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "base/util/Errors.h"

namespace streetgan {

CommandRunner::CommandRunner(const std::string& description) : app_(std::make_unique<CLI::App>(description, "streetgan-trainer")) {
    app_->require_subcommand(0, 1);
}

CommandRunner::~CommandRunner() = default;

void CommandRunner::add(std::unique_ptr<Command> command) {
    subs_.push_back(command->setup(*app_));
    commands_.push_back(std::move(command));
}

void CommandRunner::add(std::vector<std::unique_ptr<Command>> commands) {
    for (auto& c : commands) add(std::move(c));
}

bool CommandRunner::has(const std::string& name) const {
    for (const CLI::App* s : subs_)
        if (s->get_name() == name) return true;
    return false;
}

CLI::App& CommandRunner::app() { return *app_; }

int CommandRunner::run(int argc, char** argv, const ErrorText& errorText) {
    try {
        app_->parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app_->exit(e);  // --help, --version
        std::cerr << "streetgan-trainer: " << e.what() << " (see --help)\n";
        return static_cast<int>(ExitCode::Usage);
    }
    for (size_t i = 0; i < commands_.size(); ++i) {
        if (!subs_[i]->parsed()) continue;
        try {
            return commands_[i]->execute();
        } catch (const std::exception& e) {
            if (errorText) {
                if (const std::optional<std::string> text = errorText(e)) {
                    std::cerr << "streetgan-trainer: " << *text << "\n";
                    return static_cast<int>(ExitCode::Failure);
                }
            }
            std::cerr << "streetgan-trainer: " << e.what() << "\n";
            return exitCodeFor(e);
        }
    }
    std::cout << app_->help();
    return static_cast<int>(ExitCode::Usage);
}

}  // namespace streetgan
