// What the trainer's process costs the machine, for the dashboard's system panel: CPU % (of one
// core, so 2 busy cores read 200), resident memory, bytes read per second (/proc/self/io), and
// GPU utilisation and memory through NVML when the driver's libnvidia-ml.so.1 can be dlopen'ed
// (never linked: the trainer runs where there is no NVIDIA driver). Readings are deltas since
// the previous sample(). One thread (the trainer's); cheap (a few /proc reads).
#pragma once

#include <chrono>
#include <cstdint>

#include "base/run/Events.h"

namespace streetgan {

class SystemMonitor {
public:
    /// `gpuIndex` < 0: no GPU readings (a CPU run).
    explicit SystemMonitor(int gpuIndex);
    ~SystemMonitor();
    SystemMonitor(const SystemMonitor&) = delete;
    SystemMonitor& operator=(const SystemMonitor&) = delete;

    /// The readings since the previous sample(); GPU fields unset without NVML (the caller sets
    /// the step).
    SystemEvent sample();
    bool hasGpu() const { return nvmlDevice_ != nullptr; }

private:
    using Clock = std::chrono::steady_clock;
    Clock::time_point last_;
    double lastCpuSeconds_ = 0;
    int64_t lastReadBytes_ = 0;
    void* nvml_ = nullptr;        // dlopen handle
    void* nvmlDevice_ = nullptr;  // nvmlDevice_t
};

}  // namespace streetgan
