// The names of a run's checkpoint files (docs/design.md, the run directory contract), as one rule
// that the trainer, resume, pruning and every reader of a checkpoints/ folder share:
//   checkpoint_<epoch>.pt             the epoch's end, or the run's end inside the epoch: the
//                                     reference project's name, which other tools read
//   checkpoint_<epoch>_step<step>.pt  a checkpoint inside an epoch (--checkpoint-every,
//                                     checkpoint-now): one file per step, never overwritten
//   best.pt                           the copy of the checkpoint with the best quality figure so far
//                                     (BestMetric); not a name parse() accepts
// Their order, oldest first: by epoch, then by step, an epoch's own file after the step files of
// its epoch. That holds because the epoch's file is the last checkpoint written in its epoch: a
// run that ended inside an epoch and is resumed renames that file to its step name before it
// writes another checkpoint of the epoch (TrainingRun::checkpoint).
// Plain data; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace streetgan {

struct CheckpointName {
    static constexpr char kBest[] = "best.pt";

    int64_t epoch = 0;
    std::optional<int64_t> step;  ///< a mid-epoch file's step; unset: the epoch's own file

    /// The name of a file (no folder): checkpoint_<epoch>.pt or checkpoint_<epoch>_step<step>.pt,
    /// each number 1 to 18 digits; nullopt for any other name (best.pt, a write's temporary file).
    static std::optional<CheckpointName> parse(std::string_view fileName);
    /// The file name of an epoch's own checkpoint: "checkpoint_3.pt".
    static std::string ofEpoch(int64_t epoch);
    /// The file name of a mid-epoch checkpoint: "checkpoint_3_step12000.pt".
    static std::string ofStep(int64_t epoch, int64_t step);
    /// This name's file name (ofEpoch or ofStep).
    std::string fileName() const;
    /// Older first (see above).
    bool operator<(const CheckpointName& o) const;
};

}  // namespace streetgan
