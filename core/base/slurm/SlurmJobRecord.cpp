#include "base/slurm/SlurmJobRecord.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/util/AtomicFile.h"
#include "base/util/Errors.h"

namespace streetgan {

namespace {
constexpr char kVersionKey[] = "version";
constexpr char kJobId[] = "job_id";
constexpr char kSubmitted[] = "submitted";
constexpr char kCluster[] = "cluster";
constexpr char kScript[] = "script";
constexpr char kNodes[] = "nodes";
constexpr char kTasksPerNode[] = "tasks_per_node";
constexpr char kGpusPerNode[] = "gpus_per_node";
constexpr char kPartition[] = "partition";
constexpr char kAccount[] = "account";
constexpr char kTimeLimit[] = "time_limit";
}  // namespace

bool SlurmJobRecord::isJobId(const std::string& id) {
    if (id.empty() || id.size() > 18) return false;
    for (char c : id)
        if (c < '0' || c > '9') return false;
    return true;
}

nlohmann::json SlurmJobRecord::toJson() const {
    return {{kVersionKey, kVersion}, {kJobId, jobId},     {kSubmitted, submitted},       {kCluster, cluster},
            {kScript, script},       {kNodes, nodes},     {kTasksPerNode, tasksPerNode}, {kGpusPerNode, gpusPerNode},
            {kPartition, partition}, {kAccount, account}, {kTimeLimit, timeLimit}};
}

std::string SlurmJobRecord::text() const { return toJson().dump(1) + "\n"; }

SlurmJobRecord SlurmJobRecord::fromJson(const nlohmann::json& j, const std::string& where) {
    if (!j.is_object()) throw ConfigError(where + " is not a JSON object: it is not a Slurm job record; resubmit the run or remove the file");
    const auto wrongType = [&](const char* key, const char* expected) {
        return ConfigError(where + ": '" + key + "' is not " + expected + "; fix or remove the member");
    };
    if (const auto v = j.find(kVersionKey); v != j.end()) {
        if (!v->is_number_integer()) throw wrongType(kVersionKey, "a whole number");
        if (v->get<int64_t>() > kVersion)
            throw ConfigError(where + " is version " + std::to_string(v->get<int64_t>()) + ", newer than this streetgan-trainer reads (" +
                              std::to_string(kVersion) + "): update streetgan-trainer");
    }
    SlurmJobRecord r;
    const auto id = j.find(kJobId);
    if (id == j.end()) throw ConfigError(where + " has no 'job_id': it does not say which Slurm job the run is; resubmit the run");
    if (id->is_number_unsigned())
        r.jobId = std::to_string(id->get<uint64_t>());  // a hand-written record may hold a number
    else if (id->is_string())
        r.jobId = id->get<std::string>();
    if (!isJobId(r.jobId)) throw ConfigError(where + ": 'job_id' " + id->dump() + " is not a Slurm job id (digits): fix it or resubmit the run");
    const auto text = [&](const char* key, std::string& into) {
        const auto v = j.find(key);
        if (v == j.end() || v->is_null()) return;
        if (!v->is_string()) throw wrongType(key, "a string");
        into = v->get<std::string>();
    };
    const auto integer = [&](const char* key, auto& into) {
        const auto v = j.find(key);
        if (v == j.end() || v->is_null()) return;
        if (!v->is_number_integer()) throw wrongType(key, "a whole number");
        into = v->get<std::decay_t<decltype(into)>>();
    };
    integer(kSubmitted, r.submitted);
    text(kCluster, r.cluster);
    text(kScript, r.script);
    integer(kNodes, r.nodes);
    integer(kTasksPerNode, r.tasksPerNode);
    integer(kGpusPerNode, r.gpusPerNode);
    text(kPartition, r.partition);
    text(kAccount, r.account);
    text(kTimeLimit, r.timeLimit);
    return r;
}

SlurmJobRecord SlurmJobRecord::parse(const std::string& text, const std::string& where) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw ConfigError(where + " is not valid JSON (cut short or edited?): resubmit the run or restore the file");
    return fromJson(j, where);
}

std::optional<SlurmJobRecord> SlurmJobRecord::read(const std::string& runDir) {
    const std::string path = pathIn(runDir);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    return parse(AtomicFile::read(path), path);
}

void SlurmJobRecord::write(const std::string& runDir) const { AtomicFile::write(pathIn(runDir), text()); }

}  // namespace streetgan
