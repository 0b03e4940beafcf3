#include "ml/train/Trainer.h"

#include <torch/torch.h>

#include "base/util/Errors.h"
#include "ml/dist/DistributedContext.h"
#include "ml/train/RunOutput.h"
#include "ml/train/TrainingRun.h"

namespace streetgan {

Trainer::Trainer(TrainConfig cfg, std::string runDir, bool resume, TrainObserver* observer)
    : cfg_(std::move(cfg)), runDir_(std::move(runDir)), resume_(resume), observer_(observer) {
    cfg_.validate();
}

int64_t Trainer::run(const std::atomic<bool>& stop) {
    // Only rank 0 (or the single process) touches the run directory; the other ranks may run on
    // machines that cannot even see it. The output outlives the run's state (TrainingRun, whose
    // phases are listed in TrainingRun.h): a failure is written after the loader has stopped.
    RunOutput out(runDir_, !dist_ || dist_->isRoot(), observer_);
    try {
        requeued_ = false;
        TrainingRun run(cfg_, resume_, dist_, control_, out, stop, stoppedByCommand_, requeue_, requeued_);
        return run.execute();
    } catch (const std::exception& e) {
        out.fail(e.what());
        throw;
    }
}

}  // namespace streetgan
