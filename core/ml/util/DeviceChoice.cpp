#include "ml/util/DeviceChoice.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>

#include "base/util/Errors.h"

namespace streetgan {

c10::Device DeviceChoice::select(const std::string& name) {
    if (name == "cpu") return c10::Device(c10::kCPU);
    if (name == "auto") return torch::cuda::is_available() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
    if (!torch::cuda::is_available())
        throw ConfigError("device '" + name + "' requested but no CUDA device is available to this build: use --device cpu or auto");
    c10::Device d(name);
    if (d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count()))
        throw ConfigError("device '" + name + "' does not exist: this machine has " + std::to_string(torch::cuda::device_count()) + " CUDA devices");
    // cuda:N becomes the current device of the process, so that the CUDA context, the cuDNN and
    // cuBLAS handles, the caching allocator's streams and NCCL live on GPU N (not also on GPU 0).
    // Through c10's device-guard interface: no CUDA header, and a no-op build without CUDA.
    if (d.has_index()) c10::impl::getDeviceGuardImpl(d.type())->setDevice(d);
    return d;
}

}  // namespace streetgan
