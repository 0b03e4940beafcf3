#include "base/slurm/SlurmJobState.h"

#include <initializer_list>

#include "base/run/Events.h"

namespace streetgan {

namespace {
bool oneOf(const std::string& s, std::initializer_list<const char*> words) {
    for (const char* w : words)
        if (s == w) return true;
    return false;
}
}  // namespace

SlurmJobState SlurmJobState::fromSlurm(const std::string& jobId, const std::string& slurmState, const std::string& reason, std::optional<int> exitCode,
                                       int signal) {
    SlurmJobState s;
    s.jobId = jobId;
    s.slurmState = slurmState.substr(0, slurmState.find(' '));  // sacct: "CANCELLED by 1000"
    s.exitCode = exitCode;
    s.signal = signal;
    const std::string& w = s.slurmState;
    const std::string slurmReason = reason == "None" || reason == "(null)" ? std::string() : reason;
    if (oneOf(w, {"PENDING", "REQUEUE_HOLD", "SPECIAL_EXIT", "RESV_DEL_HOLD"})) {
        s.state = kQueued;
        s.reason = slurmReason.empty() && w != "PENDING" ? "held" : slurmReason;
    } else if (w == "CONFIGURING") {
        s.state = kQueued;
        s.reason = "nodes starting";
    } else if (oneOf(w, {"RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING", "RESIZING"})) {
        s.state = RunState::kRunning;
    } else if (w == "COMPLETED") {
        s.state = RunState::kFinished;
    } else if (oneOf(w, {"FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL"})) {
        s.state = RunState::kFailed;
        if (w == "NODE_FAIL")
            s.reason = "node failure";
        else if (w == "OUT_OF_MEMORY")
            s.reason = "out of memory";
        else if (w == "BOOT_FAIL")
            s.reason = "node boot failure";
        else if (!slurmReason.empty() && slurmReason != "NonZeroExitCode")  // failed before it ran: "BadConstraints"...
            s.reason = slurmReason;
        else if (signal != 0)
            s.reason = "killed by signal " + std::to_string(signal);
        else if (exitCode)
            s.reason = "exit code " + std::to_string(*exitCode);
    } else if (oneOf(w, {"CANCELLED", "REVOKED"})) {
        s.state = kCancelled;
    } else if (oneOf(w, {"TIMEOUT", "DEADLINE"})) {
        s.state = kTimedOut;
        s.reason = w == "TIMEOUT" ? "time limit" : "deadline";
    } else if (oneOf(w, {"REQUEUED", "REQUEUE_FED"})) {
        s.state = kRequeued;
    } else if (w == "PREEMPTED") {
        s.state = kPreempted;
    } else if (oneOf(w, {"SUSPENDED", "STOPPED"})) {
        s.state = kSuspended;
    } else {
        s.state = kUnknown;
        s.reason = "Slurm state '" + slurmState + "'";
    }
    return s;
}

bool SlurmJobState::ended() const { return oneOf(state, {RunState::kFinished, RunState::kFailed, kCancelled, kTimedOut, kPreempted}); }

std::string SlurmJobState::combinedWith(const std::string& trainerState) const {
    if (state == RunState::kRunning)  // the trainer's own word once it has one; before, Slurm's
        return trainerState.empty() || trainerState == RunState::kNew || trainerState == RunState::kCrashed ? std::string(RunState::kRunning) : trainerState;
    if (state == RunState::kFinished && trainerState == RunState::kStopped) return trainerState;  // `control stop` ends a job with 0
    if (state == kUnknown) return trainerState;
    return state;
}

}  // namespace streetgan
