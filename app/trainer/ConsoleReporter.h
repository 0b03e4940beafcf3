// Follows a run on the console: on a terminal a one-line progress bar redrawn in place (stderr);
// otherwise one plain line per metrics/checkpoint/status event (stdout), friendly to logs and CI.
// Reads the events through the schema (base/run/Events.h).
#pragma once

#include <chrono>
#include <cstdint>

#include "base/run/TrainObserver.h"

namespace streetgan {

class ConsoleReporter : public TrainObserver {
public:
    /// `tty`: draw the bar; detect with isatty(STDERR_FILENO).
    explicit ConsoleReporter(bool tty);
    ~ConsoleReporter() override;
    void onEvent(const nlohmann::json& event) override;

private:
    bool tty_;
    bool barShown_ = false;
    std::chrono::steady_clock::time_point start_;
    int64_t startStep_ = -1;
};

}  // namespace streetgan
