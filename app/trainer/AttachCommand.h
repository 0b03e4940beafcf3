#pragma once

#include <cstdint>
#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// attach RUN [--from-offset B] [--seconds N]: the run's events backlog, then follow, one JSON
/// line per event with its byte range; JSON commands on stdin go to the control socket and their
/// replies come back as {"reply":...} lines. Ends with an {"end":true,...} line when the trainer
/// is gone. The wire format is docs/attach-protocol.md; the SSH client runs this remotely.
class AttachCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string runDir_;
    int64_t fromOffset_ = 0;
    double seconds_ = 0;
};

}  // namespace streetgan
