// Where a training run writes, on rank 0 (or the single process): the run directory, its
// events.jsonl, and the front end's observer. emit() stamps an event's "t", appends it to the log
// and hands the same JSON to the observer; on the other ranks (which may not even see the run
// directory) it does nothing and dir() is null. Trainer::run owns one across the whole run, so a
// failure can still be written after the run's own state is gone. Used on the training thread.
#pragma once

#include <optional>
#include <string>

#include "base/run/EventLog.h"
#include "base/run/Events.h"
#include "base/run/RunDirectory.h"
#include "base/run/TrainObserver.h"

namespace streetgan {

class RunOutput {
public:
    /// `root`: creates `runDir` (RunDirectory, throws IoError) and opens its event log.
    RunOutput(const std::string& runDir, bool root, TrainObserver* observer);

    bool root() const { return root_; }
    /// The run directory; nullptr on ranks other than 0.
    RunDirectory* dir() { return dir_ ? &*dir_ : nullptr; }
    /// Stamps "t" now and appends `event` (`durable`: fsynced: status changes, checkpoints,
    /// errors). Throws IoError when the log cannot be written.
    void emit(Event event, bool durable = false);
    /// The last words of a run that threw: an error event with `message`, then the failed
    /// status. Never throws (a failing log must not hide the original error).
    void fail(const std::string& message) noexcept;

private:
    bool root_;
    TrainObserver* observer_;
    std::optional<RunDirectory> dir_;
    std::optional<EventLog> log_;
};

}  // namespace streetgan
