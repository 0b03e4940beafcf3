// What the trainer's process costs the machine, for the dashboard's system and cost panels: CPU %
// (of one core, so 2 busy cores read 200), resident memory, bytes read per second (/proc/self/io),
// GPU utilisation and memory through NVML when the driver's libnvidia-ml.so.1 can be dlopen'ed
// (never linked: the trainer runs where there is no NVIDIA driver), and the energy used since the
// monitor was made: CPU package energy from Linux RAPL (powercap energy_uj counters, which count
// the whole package, every process on it) plus the GPU's from NVML. Every reading that can never
// be made for this run says why in SystemEvent::unavailable (no NVIDIA driver, a CPU run, RAPL
// counters readable by root only, ...), from what the monitor found when it was made.
// Readings are deltas since the previous sample(). One thread (the trainer's); cheap (a few /proc
// and /sys reads).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/run/Events.h"

namespace streetgan {

class SystemMonitor {
public:
    static constexpr char kPowercapRoot[] = "/sys/class/powercap";
    static constexpr char kNvmlLibrary[] = "libnvidia-ml.so.1";

    /// `gpuIndex` < 0: no GPU readings (a run on `device`, e.g. "cpu", named in the reason).
    /// `powercapRoot` and `nvmlLibrary` are parameters for the tests (a folder of fake counters,
    /// a library that is not there).
    explicit SystemMonitor(int gpuIndex, const std::string& device = "cpu", const std::string& powercapRoot = kPowercapRoot,
                           const std::string& nvmlLibrary = kNvmlLibrary);
    ~SystemMonitor();
    SystemMonitor(const SystemMonitor&) = delete;
    SystemMonitor& operator=(const SystemMonitor&) = delete;

    /// The readings since the previous sample(); GPU fields unset without NVML, energy unset when
    /// neither RAPL nor NVML energy is readable; `unavailable` filled (the caller sets the step).
    SystemEvent sample();
    bool hasGpu() const { return nvmlDevice_ != nullptr; }
    /// Why readings are never there (EventField::kUnavailable* keys), as sample() reports it.
    const std::map<std::string, std::string>& unavailable() const { return unavailable_; }

    /// Microjoules a RAPL counter advanced from `prev` to `cur`. The counter wraps to 0 after
    /// `range` (max_energy_range_uj), so `cur` < `prev` means one wrap (a sample every few seconds
    /// sees at most one: the counters wrap after minutes at full power).
    static uint64_t raplDelta(uint64_t prev, uint64_t cur, uint64_t range);

private:
    struct RaplDomain {
        std::string energyPath;
        uint64_t range = 0, last = 0;
    };
    void openRapl(const std::string& root);
    void openNvml(int gpuIndex, const std::string& device, const std::string& library);
    bool gpuEnergyMj(unsigned long long& mj) const;

    using Clock = std::chrono::steady_clock;
    Clock::time_point last_;
    double lastCpuSeconds_ = 0;
    int64_t lastReadBytes_ = 0;  // -1: /proc/self/io not readable
    std::vector<RaplDomain> rapl_;
    double cpuJoules_ = 0;               // RAPL since construction
    unsigned long long gpuStartMj_ = 0;  // NVML's total energy at construction
    bool gpuEnergy_ = false;
    double lastEnergyJ_ = 0;
    std::map<std::string, std::string> unavailable_;
    void* nvml_ = nullptr;        // dlopen handle
    void* nvmlDevice_ = nullptr;  // nvmlDevice_t
    bool nvmlInitialised_ = false;
};

}  // namespace streetgan
