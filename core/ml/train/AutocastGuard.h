// RAII mixed-precision region, the C++ equivalent of `with torch.autocast(device, dtype)`.
// CUDA: bf16 or fp16; CPU: bf16. Not copyable; nests like the Python context manager.
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace streetgan {

class AutocastGuard {
public:
    AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, bool enabled);
    ~AutocastGuard();
    AutocastGuard(const AutocastGuard&) = delete;
    AutocastGuard& operator=(const AutocastGuard&) = delete;

private:
    c10::DeviceType device_;
    bool active_ = false;
    bool previous_ = false;
    c10::ScalarType previousDtype_ = c10::kFloat;
};

}  // namespace streetgan
