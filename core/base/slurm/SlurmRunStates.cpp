#include "base/slurm/SlurmRunStates.h"

#include <map>

#include "base/run/Events.h"
#include "base/slurm/SlurmJobRecord.h"
#include "base/slurm/SlurmQueue.h"
#include "base/util/Errors.h"

namespace streetgan {

std::string SlurmRunStates::forgotten(const std::string& jobId) { return "Slurm no longer knows job " + jobId; }

std::string SlurmRunStates::apply(const std::vector<RunInfo*>& runs, CommandShell& shell) {
    std::map<RunInfo*, std::string> jobOf;
    std::vector<std::string> ids;
    for (RunInfo* r : runs) {
        try {
            const auto record = SlurmJobRecord::read(r->path);
            if (!record) continue;
            jobOf[r] = record->jobId;
            ids.push_back(record->jobId);
            r->slurmJob = record->jobId;
        } catch (const Error& e) {
            r->reason = e.what();  // the row stays, saying what is wrong with its record
        }
    }
    if (ids.empty()) return {};
    std::map<std::string, SlurmJobState> states;
    try {
        states = SlurmQueue(shell).states(ids);
    } catch (const Error& e) {
        return std::string("cannot ask Slurm for the runs' states, shown as their trainers left them: ") + e.what();
    }
    for (const auto& [run, id] : jobOf) {
        const auto it = states.find(id);
        if (it == states.end()) {
            // Ended long ago: the trainer's final status tells how; without one, say why not.
            const bool final = run->state == RunState::kFinished || run->state == RunState::kStopped || run->state == RunState::kFailed;
            if (!final) run->reason = forgotten(id);
            continue;
        }
        run->state = it->second.combinedWith(run->state);
        run->reason = it->second.reason;
        if (run->state == RunState::kFailed && run->error.empty() && !it->second.reason.empty())
            run->error = "Slurm job " + id + " failed: " + it->second.reason;
    }
    return {};
}

}  // namespace streetgan
