#include "base/launch/SshRunLauncher.h"

#include "base/launch/SshShell.h"

namespace streetgan {

SshRunLauncher::SshRunLauncher(SshSession& session, const std::string& trainer)
    : ShellRunLauncher(std::make_unique<SshShell>(session), TrainerCommandLine(trainer)) {}

}  // namespace streetgan
