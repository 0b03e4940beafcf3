// A training run in a run directory: the loop, its schedule (log, sample, checkpoint), events,
// TensorBoard records, resume and stop. Runs on the calling thread until done or `stop` is set;
// stop checkpoints first. Errors are written as an "error" event and rethrown. With a
// TrainControl, commands queued from other threads (pause, resume, stop, checkpoint-now,
// sample-now, set-lr) are applied between steps and recorded as events.
// Distributed (setDistributed): every rank runs this loop on its own data shard; only rank 0
// writes run.json, events, samples, TensorBoard and checkpoints and takes control commands; once
// per step the ranks agree on stop/pause/lr (one small allreduce), so every command and signal
// takes effect on every rank at the same step. Resume: rank 0 reads the checkpoint and broadcasts
// its bytes, so the other ranks need no access to the run directory. The run's phases and state
// are in TrainingRun; its output (events, run directory) in RunOutput.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include <torch/types.h>

#include "base/run/TrainConfig.h"
#include "base/run/TrainObserver.h"
#include "ml/train/RequeueSignal.h"

namespace streetgan {

class TrainControl;
class DistributedContext;

class Trainer {
public:
    /// `resume`: continue from the run directory's latest checkpoint (fresh start when none).
    Trainer(TrainConfig cfg, std::string runDir, bool resume, TrainObserver* observer = nullptr);
    /// Returns the number of optimiser steps done when it returns (== total unless stopped).
    int64_t run(const std::atomic<bool>& stop);
    /// Commands for the next run(); `control` must outlive it (nullptr: none).
    void setControl(TrainControl* control) { control_ = control; }
    /// Makes run() one rank of a distributed run; `dist` must outlive it (nullptr: single process).
    void setDistributed(DistributedContext* dist) { dist_ = dist; }
    /// True when the last run() ended because of a stop command (not a signal or the schedule).
    bool stoppedByCommand() const { return stoppedByCommand_; }
    /// Slurm's time-limit warning for the next run() (RequeueSignal.h).
    void setRequeue(RequeueSignal requeue) { requeue_ = std::move(requeue); }
    /// True when the last run() stopped for a requeue (the status "requeued" is written).
    bool requeued() const { return requeued_; }

private:
    TrainConfig cfg_;
    std::string runDir_;
    bool resume_;
    TrainObserver* observer_;
    TrainControl* control_ = nullptr;
    DistributedContext* dist_ = nullptr;
    bool stoppedByCommand_ = false;
    RequeueSignal requeue_;
    bool requeued_ = false;
};

}  // namespace streetgan
