#pragma once

#include "trainer/Command.h"

namespace streetgan {

/// version [--json]: the trainer's version, app<->trainer protocol, LibTorch version and device.
/// --json prints one line {"version","protocol","libtorch","device"}: what the app's
/// RemoteTrainerSetup probe reads on a remote host (docs/remote-setup.md).
class VersionCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    bool json_ = false;
};

}  // namespace streetgan
