// Commands for a running Trainer from other threads (the control socket, a GUI): pause, resume,
// stop, checkpoint-now, sample-now, set-lr. submit() validates and queues; the trainer thread
// takes the queue between steps and writes the effect as events (docs/attach-protocol.md).
// Thread-safe: submit() from any thread; take()/waitForCommand() from the trainer's thread only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace streetgan {

struct ControlRequest {
    std::string cmd;     ///< one of TrainControl::commands()
    double value = 0.0;  ///< set-lr's learning rate
    /// When the request was refused: why (the trainer writes it as an error event); empty if valid.
    std::string rejected;
    nlohmann::json raw;  ///< the request as received (for the event)
};

class TrainControl {
public:
    /// Validates a request `{"cmd": "...", "value": ...}`; returns the reply for the client:
    /// `{"ok":true,"cmd":..}` when queued, `{"ok":false,"error":..}` when refused (which is also
    /// queued, so that the trainer records the rejection as an error event).
    nlohmann::json submit(const nlohmann::json& request);
    /// Parses one request line (JSON) and submits it; malformed JSON is refused the same way, and
    /// so is a line with a key twice in one object ({"cmd":"pause","cmd":"stop"}: which one was
    /// meant?), where a JSON parser would keep the last.
    nlohmann::json submitLine(const std::string& line);
    /// Everything queued since the last call, in order.
    std::vector<ControlRequest> take();
    /// Blocks until a request is queued or `timeout` passes.
    void waitForCommand(std::chrono::milliseconds timeout);
    static const std::vector<std::string>& commands();

private:
    /// Queues `r` refused for `why` (the trainer logs it) and returns the reply.
    nlohmann::json reject(ControlRequest r, const std::string& why);

    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<ControlRequest> queue_;
};

}  // namespace streetgan
