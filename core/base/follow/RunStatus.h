// What `ls` shows of a run directory: its state (running, paused, finished, stopped, failed, or
// crashed when the last status says running/paused but no live trainer holds the run lock), the
// latest step, losses and checkpoint. Reads only the tail of events.jsonl (a few MB at most), so
// listing runs of millions of events stays instant. A TensorBoard run of another trainer
// (TensorBoardRun: a folder of event files) is listed too, with the state "tensorboard", its last
// step and the last value of each tag; its event files are read whole the first time, then only
// what they gained. Plain reads; safe from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/tensorboard/EventFileSource.h"

namespace streetgan {

struct RunInfo {
    std::string name;   ///< folder name
    std::string path;   ///< as given (ROOT/name)
    std::string state;  ///< running | paused | finished | stopped | failed | crashed | new (Slurm runs also: SlurmJobState's)
    int64_t step = 0, totalSteps = 0, epoch = 0;
    std::optional<double> lossD, lossG;
    std::string lastCheckpoint;  ///< relative to the run directory, "" when none
    double updated = 0;          ///< wall time of the last event (s since the epoch)
    int64_t pid = 0;             ///< the live trainer's pid, 0 when none
    std::string error;           ///< the last error event's message, if any
    /// A Slurm run (RUN/slurm.json, docs/slurm.md): its job id, and why it waits or how it ended
    /// ("Priority", "exit code 3"...); SlurmRunStates sets both and the state from Slurm's.
    std::string slurmJob, reason;
    /// A TensorBoard run's tags with no field of their own, each with its last value.
    std::map<std::string, double> scalars;
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
    bool started = false;      ///< the first read (the file's tail only) happened
    bool tensorBoard = false;  ///< offset is in a TensorBoard run's event files (TensorBoardFollower)
};

class RunStatus {
public:
    /// A run of our trainer: it holds run.json or events.jsonl, or slurm.json (submitted to Slurm,
    /// maybe still queued).
    static bool isRunDirectory(const std::string& dir);
    /// A run of ours or a TensorBoard run (what `attach` and the app follow).
    static bool isAnyRun(const std::string& dir);
    static RunInfo read(const std::string& runDir);
    /// Folds what events.jsonl gained since `progress` into `info` (the first time: its last 4 MiB)
    /// and sets the state from the lock. A shorter or replaced file starts afresh. RunStatusCache
    /// keeps one per run, so a refresh reads only new bytes.
    static void readMore(const std::string& runDir, RunInfo& info, RunReadProgress& progress);
    /// ROOT itself when it is one of our runs, else its direct sub-folders that are, and the
    /// TensorBoard runs in it up to kTensorBoardDepth folders deep (ROOT included); sorted by
    /// path. A run's name is its path relative to ROOT (its folder name when ROOT is the run).
    static std::vector<RunInfo> list(const std::string& root);
    /// The run folders list() reads (same rule); IoError when ROOT is not a folder.
    static std::vector<std::string> runDirectories(const std::string& root);
    /// The TensorBoard runs under `root` as list() finds them, read through `files` (SFTP, on a
    /// host without our trainer): name, path and state only (their event files are not read).
    static std::vector<RunInfo> listTensorBoard(EventFileSource& files, const std::string& root);
    /// readMore() of a TensorBoard run whose event files are read through `files` (a host's, over
    /// SFTP): what they gained since `progress` (state "tensorboard"; a name is not given).
    static void readTensorBoardMore(EventFileSource& files, const std::string& runDir, RunInfo& info, RunReadProgress& progress);
    /// The name list() gives the run `dir` found under `root`.
    static std::string nameUnder(const std::string& root, const std::string& dir);
    /// A TensorBoard run's name as its users know it: nameUnder(), but the reference project's
    /// RUNS/NAME/events/ is NAME (the folder the trainer was given), not NAME/events.
    static std::string tensorBoardNameUnder(const std::string& root, const std::string& dir);
    /// The name a listing of `root` gives the run `dir` that read as `info`: tensorBoardNameUnder()
    /// for a TensorBoard run, else nameUnder() (list(), RunStatusCache and RunRecordReader).
    static std::string listedName(const std::string& root, const std::string& dir, const RunInfo& info);
    static constexpr int kTensorBoardDepth = 3;
    /// The state a reader reports given the last status event's state and the lock.
    static std::string effectiveState(const std::string& lastStatus, bool alive);
    /// `ls --json`'s document: {"runs":[RunInfo::toJson()...]}, and back (tolerant: a missing or
    /// malformed "runs" reads as none).
    static nlohmann::json listToJson(const std::vector<RunInfo>& runs);
    static std::vector<RunInfo> listFromJson(const nlohmann::json& j);
};

}  // namespace streetgan
