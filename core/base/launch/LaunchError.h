// The error a RunLauncher throws when its target answered and a run did not start or stop: its
// message is one line naming the target and what to do; trainerMessage() is the trainer's own
// line (what the app shows under its own heading), notRun() says the trainer could not be run
// there at all (not installed, not executable). A connection that could not be made or dropped
// is a RemoteError instead (the target did not answer).
//
// Thread contract: an exception value; copy it freely.
#pragma once

#include <string>

#include "base/util/Errors.h"

namespace streetgan {

class LaunchError : public Error {
public:
    LaunchError(const std::string& message, std::string trainerMessage, bool notRun)
        : Error(message), trainerMessage_(std::move(trainerMessage)), notRun_(notRun) {}
    const std::string& trainerMessage() const { return trainerMessage_; }
    bool notRun() const { return notRun_; }

private:
    std::string trainerMessage_;
    bool notRun_ = false;
};

}  // namespace streetgan
