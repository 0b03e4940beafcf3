#include "ml/train/Trainer.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
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

torch::Device Trainer::selectDevice(const std::string& name) {
    if (name == "cpu") return torch::kCPU;
    if (name == "auto") return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    if (!torch::cuda::is_available())
        throw ConfigError("device '" + name + "' requested but no CUDA device is available to this build: use --device cpu or auto");
    torch::Device d(name);
    if (d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count()))
        throw ConfigError("device '" + name + "' does not exist: this machine has " + std::to_string(torch::cuda::device_count()) + " CUDA devices");
    // cuda:N becomes the current device of the process, so that the CUDA context, the cuDNN and
    // cuBLAS handles, the caching allocator's streams and NCCL live on GPU N (not also on GPU 0).
    // Through c10's device-guard interface: no CUDA header, and a no-op build without CUDA.
    if (d.has_index()) c10::impl::getDeviceGuardImpl(d.type())->setDevice(d);
    return d;
}

int64_t Trainer::run(const std::atomic<bool>& stop) {
    // Only rank 0 (or the single process) touches the run directory; the other ranks may run on
    // machines that cannot even see it. The output outlives the run's state (TrainingRun, whose
    // phases are listed in TrainingRun.h): a failure is written after the loader has stopped.
    RunOutput out(runDir_, !dist_ || dist_->isRoot(), observer_);
    try {
        TrainingRun run(cfg_, resume_, dist_, control_, out, stop, stoppedByCommand_);
        return run.execute();
    } catch (const std::exception& e) {
        out.fail(e.what());
        throw;
    }
}

}  // namespace streetgan
