// One Trainer::run(): the state of a training run from its first step to its last, and the
// phases execute() runs in order:
//   prepare                device, data source and loader, model, fixed noise
//   resumeFromCheckpoint   the run directory's latest checkpoint (rank 0's bytes, broadcast)
//   writeRunJson           run.json: config, host, device, data, resumes
//   announceStart          TensorBoard, the running status and data events, the loader's start
//   trainLoop              per step: control commands, the ranks' agreement, the step itself
//                          (trainOneStep), then the schedule (periodicWork: metrics, samples,
//                          checkpoints; CheckpointKeeper names, prunes and keeps the best)
//   finish                 the last metrics, sample and checkpoint; the background FID/KID awaited
//                          (cancelled on a stop signal); the stopped/finished status
// A failure anywhere propagates; Trainer::run writes it through RunOutput after this object
// (and with it the loader's threads) is gone. The members are declared in the order the phases
// create them, so they are destroyed in the reverse order, as the locals they replace were.
// Used on the training thread only; `stop` may be set from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <torch/types.h>

#include "base/run/LoaderAdvice.h"
#include "base/run/SystemMonitor.h"
#include "base/run/TrainConfig.h"
#include "base/tensorboard/TensorBoardWriter.h"
#include "ml/checkpoint/CheckpointWriter.h"
#include "ml/checkpoint/LossHistory.h"
#include "ml/dataset/BatchLoader.h"
#include "ml/eval/TrainingMetrics.h"
#include "ml/train/CheckpointKeeper.h"
#include "ml/train/RequeueSignal.h"
#include "ml/train/RunOutput.h"
#include "ml/train/TrainStep.h"

namespace streetgan {

class DistributedContext;
class ImageSource;
class TrainControl;

class TrainingRun {
public:
    /// `stoppedByCommand`: the Trainer's flag, reset when training starts and set by a stop command.
    /// `requeue`: Slurm's time-limit warning (RequeueSignal.h); `requeued` is set when the run
    /// stopped for it.
    TrainingRun(const TrainConfig& cfg, bool resume, DistributedContext* dist, TrainControl* control, RunOutput& out, const std::atomic<bool>& stop,
                bool& stoppedByCommand, const RequeueSignal& requeue, bool& requeued);
    ~TrainingRun();
    TrainingRun(const TrainingRun&) = delete;
    TrainingRun& operator=(const TrainingRun&) = delete;

    /// Runs every phase; returns the optimiser steps done (== total unless stopped).
    int64_t execute();

private:
    using Clock = std::chrono::steady_clock;

    // Device, data source and loader, the model (seeded), the fixed progress noise.
    void prepare();
    // --resume: the latest checkpoint's model, optimiser, step, noise, loss history and CPU RNG
    // state. Rank 0 reads it; in a distributed run its bytes are broadcast, so the ranks need no
    // access to the run directory.
    void resumeFromCheckpoint();
    // run.json (rank 0 writes it; every rank computes it).
    void writeRunJson();
    // TensorBoard writer, the first running status and data events, the metric evaluator, the
    // loader's first batch and the system monitor.
    void announceStart();
    // Until the total is reached or a stop: control commands, the ranks' agreement, one step and
    // its scheduled work; waits while paused.
    void trainLoop();
    // One optimiser step on the next batch (instance noise decayed by the step).
    void trainOneStep();
    // After a step: metrics every --log-every steps; on rank 0 samples and checkpoints when due.
    void periodicWork();
    // The metrics event (averaged over the ranks; its losses appended to the history), its
    // TensorBoard scalars, a system event at most every 2 s, a data event when more bad images
    // were skipped; resets the interval.
    void logMetrics(int64_t stepsDone);
    /// A {"kind":"system"} reading (SystemMonitor) at `stepsDone`: after the first step, every
    /// 2 s with the metrics, and at the end.
    void logSystem(int64_t stepsDone);
    /// LoaderAdvice's one line (stderr and a data event), once, when the loader held the step back.
    void adviseOnLoader(int64_t stepsDone, double elapsed);
    void resetInterval();  ///< a new metrics interval starts now (its wait and images at 0)
    // A grid of the fixed noise: samples/step_N.png, TensorBoard image, sample event.
    void sample(int64_t stepsDone);
    // A checkpoint and its event: checkpoints/checkpoint_<epoch>.pt at the epoch's end or the run's
    // (`runEnd`), else checkpoint_<epoch>_step<step>.pt; its quality metrics handed to the
    // background when due; the older mid-epoch checkpoints pruned.
    void checkpoint(int64_t stepsDone, bool runEnd = false);
    /// The events of the checkpoints the writer has made durable (`wait`: all of them); prunes.
    void emitWrittenCheckpoints(bool wait);
    // Rank 0: logs the background evaluations finished since the last call (between steps).
    void pollMetrics();
    // A metric event (tagged with the step it was measured at) and its TensorBoard scalars; a best
    // event after it when its checkpoint became the best (CheckpointKeeper).
    void logMetricEvent(MetricEvent m);
    // The control socket's commands, between steps; each leaves an event.
    void applyControl();
    // Distributed: the ranks agree on stop (a signal on any rank, or rank 0's stop command),
    // pause, the learning rate and whether the stop is a requeue (Slurm's warning on any rank),
    // all from one allreduce of five numbers. Returns "stop".
    bool agreeToStop();
    // The last metrics, sample and checkpoint; the stopped/finished status, or for a requeue
    // rank 0's requeue call and the requeued status. Returns steps done.
    int64_t finish();

    /// The epoch of a step: epochBase_ plus the epochs of this run's data the steps make.
    int64_t epochOf(int64_t stepsDone) const;
    StatusEvent status(const char* state) const;

    // Settings and collaborators.
    const TrainConfig& cfg_;
    const bool resume_;
    DistributedContext* const dist_;
    TrainControl* const control_;
    RunOutput& out_;
    const std::atomic<bool>& stop_;
    bool& stoppedByCommand_;
    const RequeueSignal& requeue_;
    bool& requeued_;
    bool requeueAgreed_ = false;  ///< distributed: a rank had Slurm's warning when the stop was agreed
    const bool root_;
    const int64_t world_;

    // prepare()
    torch::Device device_{torch::kCPU};
    std::shared_ptr<const ImageSource> source_;
    std::optional<BatchLoader> loader_;
    int64_t stepsPerEpoch_ = 0, total_ = 0;
    std::optional<TrainStep> step_;
    torch::Tensor noise_;
    // resumeFromCheckpoint()
    int64_t done_ = 0;
    std::string resumedFrom_;
    nlohmann::json changedOnResume_ = nlohmann::json::object();  ///< settings this resume changed (TrainConfig::changes)
    /// The last step events.jsonl already has metrics for when resuming: a process killed after
    /// its last checkpoint logged the steps up to there, which this run recomputes but does not log
    /// again (the log is append-only; the dashboard would get two points per step).
    int64_t loggedUpTo_ = 0;
    LossHistory losses_;  // every logged step's losses (rank 0), restored on resume, in each checkpoint
    /// The resumed checkpoint's epoch less the epoch its step makes with this run's data: a run
    /// resumed from a checkpoint of other data (the reference project's, trained on another
    /// subset) keeps counting on from that epoch, and its files keep their numbering. 0 when not
    /// resumed, or when the data is the same.
    int64_t epochBase_ = 0;
    /// The reference's fixed-noise grids (img_list) of a resumed reference checkpoint, to which
    /// each checkpoint appends one (make_grid of G(noise)), as the reference does; empty for a run
    /// of ours (Checkpoint.h).
    std::vector<torch::Tensor> imgList_;
    // announceStart()
    std::optional<TensorBoardWriter> tb_;
    std::map<std::string, int64_t> lastSkipped_;
    int64_t lastCheckpointStep_ = -1, lastSampleStep_ = -1;
    std::optional<TrainingMetrics> metrics_;  // FID/KID/PR every N checkpoints (off by default), on its own thread
    // On a GPU, checkpoints are written on the writer's thread; their events wait here for the write.
    std::optional<CheckpointWriter> writer_;
    std::deque<CheckpointEvent> writing_;     // in submit order, which is the order the writes complete in
    std::optional<CheckpointKeeper> keeper_;  // rank 0: checkpoint names, pruning, best.pt (made in resumeFromCheckpoint)
    int64_t checkpointsWritten_ = 0;
    std::optional<SystemMonitor> system_;  // process and GPU load, at most every few seconds
    Clock::time_point lastSystem_;
    // The current logging interval.
    Clock::time_point intervalStart_;
    double intervalWait_ = 0;
    std::optional<LoaderAdvice> loaderAdvice_;  // rank 0: says once when the loader holds the step back
    std::string dataPathNote_;                  // rank 0: what --data-path chose and why ("": nothing said)
    int64_t intervalImages_ = 0;
    // Control state.
    bool paused_ = false;
    Clock::time_point pausedAt_;
};

}  // namespace streetgan
