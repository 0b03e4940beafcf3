#include "runs/LocalRunLister.h"

#include <QFileInfo>
#include <QObject>

#include "base/follow/RunStatus.h"
#include "base/run/Events.h"
#include "base/slurm/SlurmRunStates.h"

namespace streetgan::ui {

void LocalRunLister::list(quint64 jobId, const QString& root, const QStringList& runDirs) {
    RunEntryList opened;
    for (const QString& dir : runDirs) opened << listOne(dir);
    // The caches of runs no longer asked for (removed from the list) go.
    for (auto it = opened_.begin(); it != opened_.end();) it = runDirs.contains(QString::fromStdString(it->first)) ? std::next(it) : opened_.erase(it);
    if (root.isEmpty()) {
        emit listed(jobId, {}, opened);
        return;
    }
    try {
        std::vector<RunInfo> runs = cache_.list(root.toStdString());
        std::vector<RunInfo*> each;
        for (RunInfo& r : runs) each.push_back(&r);
        // Slurm that cannot be asked leaves the trainers' states; its one line goes with each such run.
        if (const std::string why = SlurmRunStates::apply(each, shell_); !why.empty())
            for (RunInfo& r : runs)
                if (!r.slurmJob.empty() && r.reason.empty()) r.reason = why;
        RunEntryList out;
        for (const RunInfo& r : runs) out.push_back(RunEntry::fromInfo(r));
        emit listed(jobId, out, opened);
    } catch (const std::exception& e) {
        emit failed(jobId, QString::fromStdString(e.what()), opened);
    }
}

RunEntry LocalRunLister::listOne(const QString& runDir) {
    const std::string dir = runDir.toStdString();
    RunEntry e;
    e.path = runDir;
    e.name = QString::fromStdString(RunStatus::tensorBoardNameUnder(dir, dir));  // as a listing of the run names it
    if (!QFileInfo(runDir).isDir()) {
        e.state = kMissing;
        e.error = QObject::tr("%1 no longer exists (moved or deleted?)").arg(runDir);
        return e;
    }
    if (!RunStatus::isAnyRun(dir)) {
        e.state = RunState::kNew;
        e.error = QObject::tr("No run in %1 yet (no run.json, events.jsonl or TensorBoard event files)").arg(runDir);
        return e;
    }
    e.state = RunState::kNew;
    try {
        // The folder is a run, so its own listing holds it (a TensorBoard run may hold others
        // below it: they are not what was opened).
        for (const RunInfo& r : opened_[dir].list(dir))
            if (r.path == dir) return RunEntry::fromInfo(r);
        e.error = QObject::tr("%1 could not be read as a run").arg(runDir);
    } catch (const std::exception& ex) {
        e.error = QString::fromStdString(ex.what());
    }
    return e;
}

}  // namespace streetgan::ui
