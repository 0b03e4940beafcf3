// The one place where LibTorch versions differ for us: Debian 12's LibTorch 1.13 (the desktop app,
// the packages, the tests) and pip's torch 2.x (the `cuda` preset, GPU boxes). Everything else
// calls these names and never tests TORCH_VERSION itself.
#pragma once

#include <ATen/autocast_mode.h>
#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <torch/version.h>

#include <optional>
#include <vector>

#if TORCH_VERSION_MAJOR >= 2
#include <ATen/ops/_fused_adamw.h>
#endif
#if TORCH_VERSION_MAJOR < 2
#include <c10/util/string_utils.h>
#include <c10/util/variant.h>
#else
#include <variant>
#endif

namespace c10d {
class ProcessGroup;
class Backend;
}  // namespace c10d

namespace streetgan::TorchCompat {

/// True for LibTorch 2.x: ATen's fused AdamW kernel, torch.compile-era autocast, c10d backends.
constexpr bool kTorch2 = TORCH_VERSION_MAJOR >= 2;

/// std::get_if on the options variants (c10::variant until 2.2, std::variant since).
template <typename T, typename V>
auto getIf(V* v) {
#if TORCH_VERSION_MAJOR < 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 2)
    return c10::get_if<T>(v);
#else
    return std::get_if<T>(v);
#endif
}

/// The key of a parameter in torch::optim::Optimizer::state(): the TensorImpl's address printed as
/// a string in 1.13, the address itself in 2.x.
inline auto optimizerStateKey(const at::Tensor& p) {
#if TORCH_VERSION_MAJOR < 2
    return c10::guts::to_string(p.unsafeGetTensorImpl());
#else
    return static_cast<void*>(p.unsafeGetTensorImpl());
#endif
}

// Autocast state per device type (1.13 has separate CPU and GPU calls; 2.4 made those deprecated).
inline bool autocastEnabled(c10::DeviceType d) {
#if TORCH_VERSION_MAJOR < 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 4)
    return d == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#else
    return at::autocast::is_autocast_enabled(d);
#endif
}
inline void setAutocastEnabled(c10::DeviceType d, bool on) {
#if TORCH_VERSION_MAJOR < 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 4)
    d == c10::DeviceType::CUDA ? at::autocast::set_enabled(on) : at::autocast::set_cpu_enabled(on);
#else
    at::autocast::set_autocast_enabled(d, on);
#endif
}
inline c10::ScalarType autocastDtype(c10::DeviceType d) {
#if TORCH_VERSION_MAJOR < 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 4)
    return d == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
#else
    return at::autocast::get_autocast_dtype(d);
#endif
}
inline void setAutocastDtype(c10::DeviceType d, c10::ScalarType t) {
#if TORCH_VERSION_MAJOR < 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 4)
    d == c10::DeviceType::CUDA ? at::autocast::set_autocast_gpu_dtype(t) : at::autocast::set_autocast_cpu_dtype(t);
#else
    at::autocast::set_autocast_dtype(d, t);
#endif
}

/// ATen's fused AdamW kernel (2.x; LibTorch 1.13 has none): one update of every tensor in a few
/// launches, skipped on the device when `foundInf` is non-zero. Returns false where it does not exist.
inline bool fusedAdamW(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads, const std::vector<at::Tensor>& expAvg,
                       const std::vector<at::Tensor>& expAvgSq, const std::vector<at::Tensor>& steps, double lr, double beta1, double beta2, double weightDecay,
                       double eps, const std::optional<at::Tensor>& foundInf) {
#if TORCH_VERSION_MAJOR >= 2
    at::_fused_adamw_(params, grads, expAvg, expAvgSq, {}, steps, lr, beta1, beta2, weightDecay, eps, /*amsgrad=*/false, /*maximize=*/false, std::nullopt,
                      foundInf);
    return true;
#else
    (void)params, (void)grads, (void)expAvg, (void)expAvgSq, (void)steps, (void)lr, (void)beta1, (void)beta2, (void)weightDecay, (void)eps, (void)foundInf;
    return false;
#endif
}

/// What ProcessGroupGloo and ProcessGroupNCCL derive from, and what we hold them as: the process
/// group itself in 1.13, c10d::Backend in 2.x (both have allreduce/broadcast returning a Work).
#if TORCH_VERSION_MAJOR < 2
using CollectiveGroup = c10d::ProcessGroup;
#else
using CollectiveGroup = c10d::Backend;
#endif

}  // namespace streetgan::TorchCompat
