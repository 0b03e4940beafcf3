// The run directory contract of docs/design.md: run.json, events.jsonl, checkpoints/, samples/, tb/.
// Owns the paths (the checkpoints' names are CheckpointName's); creating one checks up front that
// the folder is writable. Not thread-safe for writing run.json; the paths are plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace streetgan {

class RunDirectory {
public:
    /// Uses `root` as the run directory; creates it and its sub-folders (mode 0700) when `create`.
    /// Throws IoError with the path and what to do when it is not writable.
    RunDirectory(std::string root, bool create);

    const std::string& root() const { return root_; }
    std::string runJson() const { return root_ + "/run.json"; }
    std::string events() const { return root_ + "/events.jsonl"; }
    std::string checkpointsDir() const { return root_ + "/checkpoints"; }
    std::string samplesDir() const { return root_ + "/samples"; }
    std::string tbDir() const { return root_ + "/tb"; }
    /// checkpoints/checkpoint_<epoch>.pt: the epoch's end (or the run's end inside the epoch).
    std::string checkpointPath(int64_t epoch) const;
    /// checkpoints/checkpoint_<epoch>_step<step>.pt: a checkpoint inside the epoch.
    std::string stepCheckpointPath(int64_t epoch, int64_t step) const;
    /// checkpoints/best.pt: the copy of the checkpoint with the best quality figure.
    std::string bestCheckpointPath() const;
    std::string samplePath(int64_t step) const;

    /// Writes run.json atomically.
    void writeRunJson(const nlohmann::json& j) const;
    /// Reads run.json; throws IoError/ConfigError naming it when missing or malformed.
    nlohmann::json readRunJson() const;
    bool hasRunJson() const;
    /// The checkpoint files (CheckpointName's two forms; not best.pt), oldest first in
    /// CheckpointName's order. A file may vanish right after (pruning): readers tolerate that.
    std::vector<std::string> checkpoints() const;
    /// The newest checkpoint (the last of checkpoints()), if any: what a resume continues from.
    std::optional<std::string> latestCheckpoint() const;

private:
    std::string root_;
};

}  // namespace streetgan
