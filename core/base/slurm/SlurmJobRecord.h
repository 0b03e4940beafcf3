// RUN/slurm.json: the Slurm job a run was submitted as (docs/slurm.md), written once sbatch has
// answered: {"version":1,"job_id":"123","submitted":<unix s>,"cluster":"...","script":"job.sbatch",
// "nodes":N,"tasks_per_node":T,"gpus_per_node":G,"partition":"...","account":"...",
// "time_limit":"HH:MM:SS"}. A run directory holding it is a Slurm run: its state is asked of Slurm
// (SlurmQueue) and `control RUN stop` cancels the job.
//
// The reader is tolerant: members it does not know are ignored, a missing member keeps its
// default; only a missing or malformed job id, a wrong type or a newer version is an error, one
// line naming the file and what to do.
//
// Thread contract: a plain value; read() and parse() are safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace streetgan {

struct SlurmJobRecord {
    static constexpr int kVersion = 1;
    static constexpr const char* kFileName = "slurm.json";

    std::string jobId;      ///< sbatch's job id, digits
    int64_t submitted = 0;  ///< Unix seconds
    std::string cluster;    ///< Slurm's ClusterName, "" when unknown
    std::string script = "job.sbatch";
    int nodes = 1, tasksPerNode = 1, gpusPerNode = 0;
    std::string partition, account;  ///< "" : Slurm's default
    std::string timeLimit;           ///< HH:MM:SS, "" : the partition's

    nlohmann::json toJson() const;
    /// The file's text (JSON, one member a line).
    std::string text() const;
    /// Throws ConfigError naming `where` (the file) when the document is no record.
    static SlurmJobRecord fromJson(const nlohmann::json& j, const std::string& where);
    static SlurmJobRecord parse(const std::string& text, const std::string& where);
    /// RUN/slurm.json, read locally; nullopt when the run has none. ConfigError/IoError naming it.
    static std::optional<SlurmJobRecord> read(const std::string& runDir);
    /// Writes RUN/slurm.json atomically (AtomicFile). IoError naming it.
    void write(const std::string& runDir) const;
    static std::string pathIn(const std::string& runDir) { return runDir + "/" + kFileName; }
    /// A job id as Slurm gives it for a job of ours: digits only.
    static bool isJobId(const std::string& id);
};

}  // namespace streetgan
