// What `ls` shows of a run directory: its state (running, paused, finished, stopped, failed, or
// crashed when the last status says running/paused but no live trainer holds the run lock), the
// latest step, losses and checkpoint. Reads only the tail of events.jsonl (a few MB at most), so
// listing runs of millions of events stays instant. Plain reads; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace streetgan {

struct RunInfo {
    std::string name;   ///< folder name
    std::string path;   ///< as given (ROOT/name)
    std::string state;  ///< running | paused | finished | stopped | failed | crashed | new
    int64_t step = 0, totalSteps = 0, epoch = 0;
    std::optional<double> lossD, lossG;
    std::string lastCheckpoint;  ///< relative to the run directory, "" when none
    double updated = 0;          ///< wall time of the last event (s since the epoch)
    int64_t pid = 0;             ///< the live trainer's pid, 0 when none
    std::string error;           ///< the last error event's message, if any
    /// One run of `ls --json`; fromJson() reads it back (absent members keep their defaults).
    nlohmann::json toJson() const;
    static RunInfo fromJson(const nlohmann::json& j);
};

class RunStatus {
public:
    static bool isRunDirectory(const std::string& dir);
    static RunInfo read(const std::string& runDir);
    /// ROOT itself when it is a run, else its direct sub-folders that are runs, sorted by name.
    static std::vector<RunInfo> list(const std::string& root);
    /// The state a reader reports given the last status event's state and the lock.
    static std::string effectiveState(const std::string& lastStatus, bool alive);
    /// `ls --json`'s document: {"runs":[RunInfo::toJson()...]}, and back (tolerant: a missing or
    /// malformed "runs" reads as none).
    static nlohmann::json listToJson(const std::vector<RunInfo>& runs);
    static std::vector<RunInfo> listFromJson(const nlohmann::json& j);
};

}  // namespace streetgan
