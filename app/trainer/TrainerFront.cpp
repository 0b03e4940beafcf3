#include "trainer/TrainerFront.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "base/util/Errors.h"
#include "base/util/Paths.h"
#include "trainer/AttachCommand.h"
#include "trainer/CommandRunner.h"
#include "trainer/ControlCommand.h"
#include "trainer/LsCommand.h"
#include "trainer/RemoteCommand.h"
#include "trainer/SubmitCommand.h"

#ifndef STREETGAN_TORCH_TRAINER_FROM_BIN
#error "STREETGAN_TORCH_TRAINER_FROM_BIN (the installed full trainer, relative to the bin folder) comes from app/CMakeLists.txt"
#endif

namespace streetgan {

const char* TrainerFront::description() { return "streetgan-trainer: train and inspect DCGAN models of street-level photos (headless)"; }

std::vector<std::unique_ptr<Command>> TrainerFront::torchFreeCommands() {
    std::vector<std::unique_ptr<Command>> commands;
    commands.push_back(std::make_unique<LsCommand>());
    commands.push_back(std::make_unique<AttachCommand>());
    commands.push_back(std::make_unique<ControlCommand>());
    commands.push_back(std::make_unique<RemoteCommand>());
    commands.push_back(std::make_unique<SubmitCommand>());
    return commands;
}

std::string TrainerFront::torchExecutable() {
    namespace fs = std::filesystem;
    const fs::path self = Paths::selfExecutable();
    const fs::path beside = self.parent_path() / "streetgan-trainer-torch";
    const fs::path installed = (self.parent_path() / STREETGAN_TORCH_TRAINER_FROM_BIN).lexically_normal();
    for (const fs::path& p : {beside, installed})
        if (::access(p.c_str(), X_OK) == 0) return p.string();
    throw IoError("the full trainer is missing: neither " + beside.string() + " nor " + installed.string() +
                  " exists; reinstall streetgan-trainer (or build the streetgan-trainer target)");
}

int TrainerFront::run(int argc, char** argv) {
    CommandRunner runner(description());
    runner.add(torchFreeCommands());
    if (argc >= 2 && runner.has(argv[1])) return runner.run(argc, argv);
    std::string exe;
    try {
        exe = torchExecutable();
    } catch (const std::exception& e) {
        std::cerr << "streetgan-trainer: " << e.what() << "\n";
        return exitCodeFor(e);
    }
    ::execv(exe.c_str(), argv);
    std::cerr << "streetgan-trainer: cannot run " << exe << " (" << std::strerror(errno) << "): reinstall streetgan-trainer\n";
    return static_cast<int>(ExitCode::Failure);
}

}  // namespace streetgan
