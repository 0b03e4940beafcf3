#include "ml/train/AutocastGuard.h"

#include <ATen/autocast_mode.h>

#include "ml/util/TorchCompat.h"

namespace streetgan {

AutocastGuard::AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, bool enabled) : device_(device), active_(enabled) {
    if (!active_) return;
    previous_ = TorchCompat::autocastEnabled(device_);
    previousDtype_ = TorchCompat::autocastDtype(device_);
    TorchCompat::setAutocastDtype(device_, dtype);
    TorchCompat::setAutocastEnabled(device_, true);
    at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
    if (!active_) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    TorchCompat::setAutocastEnabled(device_, previous_);
    TorchCompat::setAutocastDtype(device_, previousDtype_);
}

}  // namespace streetgan
