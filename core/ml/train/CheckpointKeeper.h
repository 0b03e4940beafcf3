// What a run keeps of its checkpoints (docs/design.md, "Checkpoints"; issue 43 item 4), on rank 0:
//   names      the path of each checkpoint (CheckpointName): the epoch's own file at the epoch's
//              or the run's end, a file per step inside an epoch; a resumed run renames the epoch
//              file it continues from to its step name before it writes another checkpoint of
//              that epoch, so the epoch's file is always the newest of its epoch (resume's order)
//   pruning    the newest keep_checkpoints mid-epoch files are kept (0: all) and older ones
//              deleted, except a checkpoint whose quality evaluation is still awaited; the epochs'
//              own files and best.pt are never deleted. Pruned files vanish without an event: a
//              checkpoint event's path may name a file that is gone.
//   best       when a metric event's best_metric figure beats the best so far, that checkpoint is
//              copied to checkpoints/best.pt atomically (a hard link to a temporary name renamed
//              over it; a copy where the file system has no hard links) and a best event says so.
//              A resumed run takes the best so far from its last best event of the same figure
//              (while best.pt exists), so it only ever replaces best.pt with a better checkpoint.
// Does no Torch: it sees paths, steps and events. Used on the training thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "base/run/BestMetric.h"
#include "base/run/CheckpointName.h"
#include "base/run/Events.h"
#include "base/run/RunDirectory.h"
#include "base/run/TrainConfig.h"

namespace streetgan {

class CheckpointKeeper {
public:
    /// `dir` must outlive the keeper.
    CheckpointKeeper(const RunDirectory& dir, const TrainConfig& cfg);

    /// A resumed run: `path` (absolute) is the checkpoint it continues from, saved at `step`; the
    /// best so far is read from events.jsonl's last best event of best_metric (none when best.pt
    /// is missing: the next figure makes a new one).
    void resume(const std::string& path, int64_t step);
    /// The absolute path to write the checkpoint of `step` in `epoch` to: the epoch's own file when
    /// `epochFile` (its end, or the run's), else the step's file. Renames the epoch file a resume
    /// continued from when this is the next mid-epoch checkpoint of its epoch (IoError if it cannot).
    std::string pathFor(int64_t epoch, int64_t step, bool epochFile);
    /// The checkpoint of `step` is (being) written to `path`; `evaluating`: its quality evaluation
    /// was submitted, and pruning keeps it until measured() has its event.
    void written(int64_t step, int64_t epoch, const std::string& path, bool evaluating);
    /// A metric event: its checkpoint is no longer awaited. When its figure beats the best so far,
    /// copies the checkpoint to best.pt and returns the best event to log (IoError when the copy
    /// fails). The checkpoint file must be durable (written) by now.
    std::optional<BestEvent> measured(const MetricEvent& m);
    /// Deletes the mid-epoch checkpoints older than the newest keep_checkpoints, but those awaited
    /// by an evaluation. Returns how many it deleted. A file that cannot be deleted is left.
    int prune();

    /// "checkpoints/<file name>" of an absolute checkpoint path: how events name it.
    static std::string relative(const std::string& path);

private:
    struct Awaited {
        int64_t epoch = 0;
        std::string path;
    };
    void readBestSoFar();
    /// Copies `from` to `to` atomically: never a partial `to`.
    static void copyAtomically(const std::string& from, const std::string& to);

    const RunDirectory& dir_;
    const int64_t keep_;
    const BestMetric::Spec* best_;                    ///< nullptr: best_metric none, or no metrics evaluated
    std::optional<double> bestValue_;                 ///< the best figure so far
    std::map<int64_t, Awaited> awaited_;              ///< by step: the checkpoints whose evaluation is submitted and not yet logged
    std::optional<CheckpointName> resumedEpochFile_;  ///< the epoch file a resume continued from, until renamed or its epoch is over
    int64_t resumedStep_ = 0;
};

}  // namespace streetgan
