#include "trainer/TrainerCli.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include <c10/core/Device.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include "trainer/BenchCommand.h"
#include "trainer/DataCommand.h"
#include "trainer/EvalCommand.h"
#include "trainer/ExportCommand.h"
#include "trainer/ModelInfoCommand.h"
#include "trainer/SampleCommand.h"
#include "trainer/TrainCommand.h"
// --- includes: daemon ---
#include "trainer/AttachCommand.h"
#include "trainer/ControlCommand.h"
#include "trainer/LsCommand.h"
// --- includes: remote ---
#include "trainer/RemoteCommand.h"
// --- includes: metrics ---
// --- includes: gallery ---
#include "base/util/Errors.h"
#include "base/util/Version.h"
#include "trainer/ExploreWorkerCommand.h"
#include "trainer/LaunchCommand.h"
#include "trainer/RenderCommand.h"
#include "trainer/ServeCommand.h"
#include "trainer/VersionCommand.h"

namespace streetgan {

int TrainerCli::run(int argc, char** argv) {
    CLI::App app{"streetgan-trainer: train and inspect DCGAN models of street-level photos (headless)", "streetgan-trainer"};
    app.require_subcommand(0, 1);
    // A function, not a string: CUDA is probed only when --version is asked for, not at every start.
    app.set_version_flag("--version", std::function<std::string()>([] {
                             return std::string("streetgan-trainer ") + Version::text() + " (LibTorch " + TORCH_VERSION + ", " +
                                    (torch::cuda::is_available() ? "CUDA" : "CPU") + ")";
                         }));
    std::vector<std::unique_ptr<Command>> commands;
    commands.push_back(std::make_unique<ModelInfoCommand>());
    commands.push_back(std::make_unique<TrainCommand>());
    commands.push_back(std::make_unique<SampleCommand>());
    commands.push_back(std::make_unique<EvalCommand>());
    commands.push_back(std::make_unique<ExportCommand>());
    commands.push_back(std::make_unique<BenchCommand>());
    commands.push_back(std::make_unique<DataCommand>());
    // --- commands: daemon ---
    commands.push_back(std::make_unique<TrainCommand>(TrainCommand::Mode::Start));
    commands.push_back(std::make_unique<LsCommand>());
    commands.push_back(std::make_unique<AttachCommand>());
    commands.push_back(std::make_unique<ControlCommand>());
    // --- commands: remote ---
    commands.push_back(std::make_unique<RemoteCommand>());
    // --- commands: metrics ---
    // --- commands: gallery ---
    commands.push_back(std::make_unique<ServeCommand>());
    commands.push_back(std::make_unique<RenderCommand>());
    commands.push_back(std::make_unique<LaunchCommand>());
    commands.push_back(std::make_unique<ExploreWorkerCommand>());
    commands.push_back(std::make_unique<VersionCommand>());
    std::vector<CLI::App*> subs;
    for (auto& c : commands) subs.push_back(c->setup(app));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::cerr << "streetgan-trainer: " << e.what() << " (see --help)\n";
        return static_cast<int>(ExitCode::Usage);
    }
    for (size_t i = 0; i < commands.size(); ++i) {
        if (!subs[i]->parsed()) continue;
        try {
            return commands[i]->execute();
        } catch (const c10::Error& e) {
            std::cerr << "streetgan-trainer: internal LibTorch error: " << e.what_without_backtrace() << "\n";
            return static_cast<int>(ExitCode::Failure);
        } catch (const std::exception& e) {
            std::cerr << "streetgan-trainer: " << e.what() << "\n";
            return exitCodeFor(e);
        }
    }
    std::cout << app.help();
    return static_cast<int>(ExitCode::Usage);
}

}  // namespace streetgan
