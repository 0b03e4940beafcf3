// streetgan-trainer itself: runs the commands that need no LibTorch (ls, attach, control, remote, submit)
// in-process and execs streetgan-trainer-torch, which has every command, for anything else (the
// other commands, --help, --version). Loading LibTorch costs one to two seconds per process, which
// `remote fetch` on a fast link, the app's `ls --json` over SSH on every refresh and each `attach`
// would otherwise pay. The exec keeps the process id and argv, so daemons and scripts see one
// program.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "trainer/Command.h"

namespace streetgan {

class TrainerFront {
public:
    /// The one description both binaries print atop --help.
    static const char* description();
    /// The commands that need no LibTorch; TrainerCli adds them to its own.
    static std::vector<std::unique_ptr<Command>> torchFreeCommands();
    /// The full trainer: streetgan-trainer-torch beside this program (a build tree) or in
    /// ../libexec/streetgan/ (an install). IoError naming both places when neither has it.
    static std::string torchExecutable();
    static int run(int argc, char** argv);
};

}  // namespace streetgan
