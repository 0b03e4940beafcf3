// The run directory contract of docs/design.md: run.json, events.jsonl, checkpoints/, samples/, tb/.
// Owns the paths; creating one checks up front that the folder is writable.
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
    std::string checkpointPath(int64_t epoch) const;
    std::string samplePath(int64_t step) const;

    /// Writes run.json atomically.
    void writeRunJson(const nlohmann::json& j) const;
    /// Reads run.json; throws IoError/ConfigError naming it when missing or malformed.
    nlohmann::json readRunJson() const;
    bool hasRunJson() const;
    /// checkpoints/checkpoint_<epoch>.pt sorted by epoch.
    std::vector<std::string> checkpoints() const;
    /// The checkpoint with the highest epoch, if any.
    std::optional<std::string> latestCheckpoint() const;

private:
    std::string root_;
};

}  // namespace streetgan
