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

/// How far RunStatus::readMore has read a run's events.jsonl, and what it keeps between reads.
struct RunReadProgress {
    uint64_t offset = 0;  ///< bytes of events.jsonl folded in (up to the end of a complete line)
    uint64_t inode = 0;   ///< events.jsonl's inode: another file (replaced) means reading afresh
    std::string lastStatus, lastError;
    bool sawStatus = false;
    bool started = false;  ///< the first read (the file's tail only) happened
};

class RunStatus {
public:
    static bool isRunDirectory(const std::string& dir);
    static RunInfo read(const std::string& runDir);
    /// Folds what events.jsonl gained since `progress` into `info` (the first time: its last 4 MiB)
    /// and sets the state from the lock. A shorter or replaced file starts afresh. RunStatusCache
    /// keeps one per run, so a refresh reads only new bytes.
    static void readMore(const std::string& runDir, RunInfo& info, RunReadProgress& progress);
    /// ROOT itself when it is a run, else its direct sub-folders that are runs, sorted by name.
    static std::vector<RunInfo> list(const std::string& root);
    /// The run folders list() reads (same rule); IoError when ROOT is not a folder.
    static std::vector<std::string> runDirectories(const std::string& root);
    /// The state a reader reports given the last status event's state and the lock.
    static std::string effectiveState(const std::string& lastStatus, bool alive);
    /// `ls --json`'s document: {"runs":[RunInfo::toJson()...]}, and back (tolerant: a missing or
    /// malformed "runs" reads as none).
    static nlohmann::json listToJson(const std::vector<RunInfo>& runs);
    static std::vector<RunInfo> listFromJson(const nlohmann::json& j);
};

}  // namespace streetgan
