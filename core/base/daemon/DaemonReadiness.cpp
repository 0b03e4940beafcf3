#include "base/daemon/DaemonReadiness.h"

#include <unistd.h>

#include "base/run/Events.h"

namespace streetgan {

DaemonReadiness::DaemonReadiness(int fd, TrainObserver* inner) : fd_(fd), inner_(inner) {}

DaemonReadiness::~DaemonReadiness() {
    if (fd_ >= 0) ::close(fd_);
}

void DaemonReadiness::send(const std::string& line) {
    if (fd_ < 0) return;
    const std::string text = line + "\n";
    [[maybe_unused]] const ssize_t n = ::write(fd_, text.data(), text.size());  // the reader may be gone
    ::close(fd_);
    fd_ = -1;
}

void DaemonReadiness::onEvent(const nlohmann::json& event) {
    if (inner_) inner_->onEvent(event);
    if (fd_ < 0) return;
    const Event typed = eventFromJson(event);
    const auto* status = std::get_if<StatusEvent>(&typed);
    if (status && status->state == RunState::kRunning) send("ready");
}

void DaemonReadiness::fail(int exitCode, const std::string& message) {
    std::string oneLine = message;
    for (char& c : oneLine)
        if (c == '\n') c = ' ';
    send("error " + std::to_string(exitCode) + " " + oneLine);
}

}  // namespace streetgan
