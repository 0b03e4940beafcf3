#include "ml/train/RunOutput.h"

namespace streetgan {

RunOutput::RunOutput(const std::string& runDir, bool root, TrainObserver* observer) : root_(root), observer_(observer) {
    if (!root_) return;
    dir_.emplace(runDir, /*create=*/true);
    log_.emplace(dir_->events());
}

void RunOutput::emit(Event event, bool durable) {
    if (!root_) return;
    setTime(event, EventLog::now());
    const nlohmann::json j = toJson(event);
    log_->append(j, durable);
    if (observer_) observer_->onEvent(j);
}

void RunOutput::fail(const std::string& message) noexcept {
    try {
        ErrorEvent error;
        error.message = message;
        emit(error, true);
        StatusEvent failed;
        failed.state = RunState::kFailed;
        emit(failed, true);
    } catch (...) {
        // the event log itself failed (e.g. full disk): the original error is what matters
    }
}

}  // namespace streetgan
