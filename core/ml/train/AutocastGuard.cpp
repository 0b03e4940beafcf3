#include "ml/train/AutocastGuard.h"

#include <ATen/autocast_mode.h>

namespace streetgan {

AutocastGuard::AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, bool enabled) : device_(device), active_(enabled) {
    if (!active_) return;
    if (device_ == c10::DeviceType::CUDA) {
        previous_ = at::autocast::is_enabled();
        previousDtype_ = at::autocast::get_autocast_gpu_dtype();
        at::autocast::set_autocast_gpu_dtype(dtype);
        at::autocast::set_enabled(true);
    } else {
        previous_ = at::autocast::is_cpu_enabled();
        previousDtype_ = at::autocast::get_autocast_cpu_dtype();
        at::autocast::set_autocast_cpu_dtype(dtype);
        at::autocast::set_cpu_enabled(true);
    }
    at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
    if (!active_) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    if (device_ == c10::DeviceType::CUDA) {
        at::autocast::set_enabled(previous_);
        at::autocast::set_autocast_gpu_dtype(previousDtype_);
    } else {
        at::autocast::set_cpu_enabled(previous_);
        at::autocast::set_autocast_cpu_dtype(previousDtype_);
    }
}

}  // namespace streetgan
