#include "base/slurm/SlurmStepEnv.h"

#include <cstdlib>
#include <vector>

#include "base/slurm/SlurmHostList.h"
#include "base/util/Errors.h"

namespace streetgan {
namespace {

constexpr char kFix[] = ": start the trainer with srun inside the Slurm job (docs/distributed.md), or unset the stray SLURM_* variables";

bool isNumber(const std::string& s) { return !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos; }

std::optional<std::string> value(const SlurmStepEnv::Lookup& lookup, const char* name) {
    const char* v = lookup(name);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
}

int wholeNumber(const std::string& name, const std::string& v, long long lo, long long hi) {
    if (!isNumber(v) || std::stoll(v) < lo || std::stoll(v) > hi)
        throw ConfigError("Slurm's " + name + "='" + v + "' is not a whole number in " + std::to_string(lo) + ".." + std::to_string(hi) + kFix);
    return static_cast<int>(std::stoll(v));
}

int required(const SlurmStepEnv::Lookup& lookup, const char* name, long long lo, long long hi) {
    const auto v = value(lookup, name);
    if (!v) throw ConfigError(std::string("Slurm's ") + name + " is not set although SLURM_STEP_ID is" + kFix);
    return wholeNumber(name, *v, lo, hi);
}

// "2(x3),1" -> 2,2,2,1: tasks on each node of the step, in node order.
std::vector<int> tasksPerNode(const std::string& name, const std::string& v) {
    std::vector<int> counts;
    size_t at = 0;
    const auto bad = [&] { return ConfigError("Slurm's " + name + "='" + v + "' is not a list of task counts like 2(x3),1" + kFix); };
    while (at <= v.size()) {
        const size_t comma = v.find(',', at);
        const std::string item = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        const size_t paren = item.find("(x");
        const std::string count = item.substr(0, paren);
        long long repeat = 1;
        if (paren != std::string::npos) {
            if (item.back() != ')' || !isNumber(item.substr(paren + 2, item.size() - paren - 3))) throw bad();
            repeat = std::stoll(item.substr(paren + 2, item.size() - paren - 3));
        }
        if (!isNumber(count) || std::stoll(count) < 1 || std::stoll(count) > (1 << 20) || repeat < 1 || repeat > (1 << 20) ||
            counts.size() + static_cast<size_t>(repeat) > (1 << 20))
            throw bad();
        counts.insert(counts.end(), static_cast<size_t>(repeat), static_cast<int>(std::stoll(count)));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return counts;
}

}  // namespace

int SlurmStepEnv::derivedPort(unsigned long long jobId) { return 20000 + static_cast<int>(jobId % 20000); }

std::optional<SlurmStepEnv> SlurmStepEnv::fromEnvironment() {
    return from([](const char* name) { return static_cast<const char*>(std::getenv(name)); });
}

std::optional<SlurmStepEnv> SlurmStepEnv::from(const Lookup& lookup) {
    const auto step = value(lookup, "SLURM_STEP_ID");
    if (!step || !isNumber(*step)) return std::nullopt;  // not a task of a step (a batch script's shell, an salloc shell)
    SlurmStepEnv e;
    e.stepId = *step;
    const auto job = value(lookup, "SLURM_JOB_ID") ? value(lookup, "SLURM_JOB_ID") : value(lookup, "SLURM_JOBID");
    if (!job) throw ConfigError(std::string("Slurm's SLURM_JOB_ID is not set although SLURM_STEP_ID is") + kFix);
    if (!isNumber(*job)) throw ConfigError("Slurm's SLURM_JOB_ID='" + *job + "' is not a job number" + kFix);
    e.jobId = *job;

    e.worldSize = value(lookup, "SLURM_STEP_NUM_TASKS") ? required(lookup, "SLURM_STEP_NUM_TASKS", 1, 1 << 20) : required(lookup, "SLURM_NTASKS", 1, 1 << 20);
    e.rank = required(lookup, "SLURM_PROCID", 0, e.worldSize - 1);
    e.localRank = required(lookup, "SLURM_LOCALID", 0, e.worldSize - 1);
    if (const auto perNode = value(lookup, "SLURM_NTASKS_PER_NODE")) {
        e.localWorldSize = wholeNumber("SLURM_NTASKS_PER_NODE", *perNode, 1, e.worldSize);
    } else {
        const char* name = value(lookup, "SLURM_STEP_TASKS_PER_NODE") ? "SLURM_STEP_TASKS_PER_NODE" : "SLURM_TASKS_PER_NODE";
        const auto list = value(lookup, name);
        if (!list) throw ConfigError(std::string("Slurm's SLURM_STEP_TASKS_PER_NODE is not set although SLURM_STEP_ID is") + kFix);
        const std::vector<int> counts = tasksPerNode(name, *list);
        const int node = value(lookup, "SLURM_NODEID") ? required(lookup, "SLURM_NODEID", 0, static_cast<long long>(counts.size()) - 1) : 0;
        e.localWorldSize = counts[static_cast<size_t>(node)];
    }
    if (e.localRank >= e.localWorldSize)
        throw ConfigError("Slurm's SLURM_LOCALID=" + std::to_string(e.localRank) + " is not below this node's " + std::to_string(e.localWorldSize) + " tasks" +
                          kFix);

    const char* nodeListName = value(lookup, "SLURM_STEP_NODELIST")  ? "SLURM_STEP_NODELIST"
                               : value(lookup, "SLURM_JOB_NODELIST") ? "SLURM_JOB_NODELIST"
                                                                     : "SLURM_NODELIST";
    const auto nodeList = value(lookup, nodeListName);
    if (!nodeList) throw ConfigError(std::string("Slurm's SLURM_STEP_NODELIST is not set although SLURM_STEP_ID is") + kFix);
    e.masterAddr = SlurmHostList::first(*nodeList, std::string("Slurm's ") + nodeListName);

    if (const auto ports = value(lookup, "SLURM_STEP_RESV_PORTS")) {
        // "12000-12003" or "12000,12002": the first is the rendezvous port
        const std::string firstPort = ports->substr(0, ports->find_first_of("-,"));
        if (!isNumber(firstPort) || std::stoll(firstPort) < 1 || std::stoll(firstPort) > 65535)
            throw ConfigError("Slurm's SLURM_STEP_RESV_PORTS='" + *ports + "' does not start with a port number" + kFix);
        e.masterPort = static_cast<int>(std::stoll(firstPort));
    } else {
        e.masterPort = derivedPort(std::stoull(e.jobId));
    }
    return e;
}

}  // namespace streetgan
