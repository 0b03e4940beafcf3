// Worker: lists the runs of a local folder off the GUI thread (base's RunStatusCache: state from
// each events.jsonl and the trainer lock; a refresh reads only what the files gained), and with
// them the runs opened from elsewhere (the sidebar's "Opened" group), each read by its own
// RunStatusCache the same way. A run submitted to Slurm from this computer (RUN/slurm.json, a login
// node or a shared file system) shows Slurm's state and reason (SlurmRunStates: one squeue per
// listing, only when such a run is there). Results carry the job id. Lives on one worker thread.
#pragma once

#include <QObject>
#include <QStringList>
#include <map>
#include <string>

#include "base/follow/RunStatusCache.h"
#include "base/launch/LocalShell.h"
#include "common/RunEntry.h"

namespace streetgan::ui {

class LocalRunLister : public QObject {
    Q_OBJECT
public:
    /// The state of an opened run whose folder is gone (moved or deleted); its error says so.
    static constexpr char kMissing[] = "missing";

    /// Lists the runs under `root` ("" for none) and, each by itself, the run folders `runDirs`
    /// (absolute, as RunPalette::key writes them): one entry per folder, in order, with the
    /// state kMissing when it no longer exists, RunState::kNew (and why in its error) when it
    /// holds no run (yet). One answer per job: listed, or failed when `root` cannot be listed,
    /// which carries the runDirs' entries all the same.
    void list(quint64 jobId, const QString& root, const QStringList& runDirs = {});
signals:
    void listed(quint64 jobId, const streetgan::ui::RunEntryList& runs, const streetgan::ui::RunEntryList& opened);
    void failed(quint64 jobId, const QString& message, const streetgan::ui::RunEntryList& opened);

private:
    RunEntry listOne(const QString& runDir);
    RunStatusCache cache_;
    LocalShell shell_;  ///< where squeue runs for the Slurm runs of a listing
    // One cache per opened run: a RunStatusCache forgets the runs its last list() did not see,
    // so the workspace's cannot keep them.
    std::map<std::string, RunStatusCache> opened_;
};

}  // namespace streetgan::ui
