#pragma once

#include <string>

#include "trainer/Command.h"

namespace streetgan {

/// control RUN pause|resume|stop|checkpoint-now|sample-now|set-lr VALUE: one command to a live
/// trainer's control socket; prints the reply. Exit 0 accepted, 3 refused, 5 not running.
/// `stop` of a run submitted to Slurm (RUN/slurm.json) cancels its job with scancel instead
/// (queued or running; 3 when the job has ended).
class ControlCommand : public Command {
public:
    CLI::App* setup(CLI::App& parent) override;
    int execute() override;

private:
    std::string runDir_, cmd_, value_;
};

}  // namespace streetgan
