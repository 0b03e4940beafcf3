// The detached trainer's side of `start --detach`: forwards every event to an inner observer
// and tells the waiting `start` process, through an inherited pipe, either "ready" (the first
// `running` status: model built, data opened) or "error CODE MESSAGE". Used on the trainer
// thread only; the first word written wins and closes the pipe.
#pragma once

#include <string>

#include "base/run/TrainObserver.h"

namespace streetgan {

class DaemonReadiness : public TrainObserver {
public:
    /// `fd`: the pipe's write end (owned from now on); `inner` may be null.
    DaemonReadiness(int fd, TrainObserver* inner);
    ~DaemonReadiness() override;
    void onEvent(const nlohmann::json& event) override;
    void setInner(TrainObserver* inner) { inner_ = inner; }
    /// Reports a failure before readiness (no-op after it).
    void fail(int exitCode, const std::string& message);

private:
    void send(const std::string& line);

    int fd_;
    TrainObserver* inner_;
};

}  // namespace streetgan
