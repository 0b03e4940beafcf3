#include "trainer/TrainerCli.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>

#include <c10/util/Exception.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include "base/util/Version.h"
#include "trainer/BenchCommand.h"
#include "trainer/CommandRunner.h"
#include "trainer/DataCommand.h"
#include "trainer/DirectionsCommand.h"
#include "trainer/DistCheckCommand.h"
#include "trainer/EvalCommand.h"
#include "trainer/ExploreWorkerCommand.h"
#include "trainer/ExportCommand.h"
#include "trainer/InvertCommand.h"
#include "trainer/LaunchCommand.h"
#include "trainer/ModelInfoCommand.h"
#include "trainer/RenderCommand.h"
#include "trainer/SampleCommand.h"
#include "trainer/ServeCommand.h"
#include "trainer/TrainCommand.h"
#include "trainer/TrainerFront.h"
#include "trainer/VersionCommand.h"

namespace streetgan {

int TrainerCli::run(int argc, char** argv) {
    CommandRunner runner(TrainerFront::description());
    // A function, not a string: CUDA is probed only when --version is asked for, not at every start.
    runner.app().set_version_flag("--version", std::function<std::string()>([] {
                                      return std::string("streetgan-trainer ") + Version::text() + " (LibTorch " + TORCH_VERSION + ", " +
                                             (torch::cuda::is_available() ? "CUDA" : "CPU") + ")";
                                  }));
    runner.add(std::make_unique<ModelInfoCommand>());
    runner.add(std::make_unique<TrainCommand>());
    runner.add(std::make_unique<SampleCommand>());
    runner.add(std::make_unique<EvalCommand>());
    runner.add(std::make_unique<ExportCommand>());
    runner.add(std::make_unique<BenchCommand>());
    runner.add(std::make_unique<DataCommand>());
    runner.add(std::make_unique<TrainCommand>(TrainCommand::Mode::Start));
    runner.add(TrainerFront::torchFreeCommands());  // ls, attach, control, remote
    runner.add(std::make_unique<ServeCommand>());
    runner.add(std::make_unique<RenderCommand>());
    runner.add(std::make_unique<InvertCommand>());
    runner.add(std::make_unique<DirectionsCommand>());
    runner.add(std::make_unique<LaunchCommand>());
    runner.add(std::make_unique<DistCheckCommand>());
    runner.add(std::make_unique<ExploreWorkerCommand>());
    runner.add(std::make_unique<VersionCommand>());
    return runner.run(argc, argv, [](const std::exception& e) -> std::optional<std::string> {
        if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return std::string("internal LibTorch error: ") + c10->what_without_backtrace();
        return std::nullopt;
    });
}

}  // namespace streetgan
