#include "ml/util/GpuName.h"

// STREETGAN_HAVE_CUDA: set for this file alone where LibTorch has CUDA (core/ml/CMakeLists.txt).
// The properties come from libtorch_cuda (no libcudart of our own).
#ifdef STREETGAN_HAVE_CUDA
#include <ATen/cuda/CUDAContextLight.h>
#endif

namespace streetgan {

std::string GpuName::of(torch::Device device) {
#ifdef STREETGAN_HAVE_CUDA
    if (device.is_cuda()) return at::cuda::getDeviceProperties(device.has_index() ? device.index() : 0)->name;
#endif
    (void)device;
    return {};
}

}  // namespace streetgan
