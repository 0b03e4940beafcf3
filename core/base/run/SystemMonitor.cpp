#include "base/run/SystemMonitor.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace streetgan {
namespace {

// The few NVML entry points used, with the C ABI of nvml.h (not included: no build dependency).
struct NvmlUtilization {
    unsigned int gpu, memory;
};
struct NvmlMemory {
    unsigned long long total, free, used;
};
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlGetHandle = int (*)(unsigned int, void**);
using NvmlGetUtilization = int (*)(void*, NvmlUtilization*);
using NvmlGetMemory = int (*)(void*, NvmlMemory*);

double cpuSeconds() {
    std::ifstream in("/proc/self/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');  // the command name may contain spaces
    if (close == std::string::npos) return 0;
    std::istringstream fields(text.substr(close + 2));
    std::string f;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) {
        if (i == 14) utime = std::stoull(f);
        if (i == 15) stime = std::stoull(f);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double rssMb() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
    return 0;
}

int64_t readBytes() {
    std::ifstream in("/proc/self/io");  // rchar: every read(), page cache or not, mmap'ed files excluded
    for (std::string line; std::getline(in, line);)
        if (line.rfind("rchar:", 0) == 0) return std::stoll(line.substr(6));
    return 0;
}

}  // namespace

SystemMonitor::SystemMonitor(int gpuIndex) : last_(Clock::now()), lastCpuSeconds_(cpuSeconds()), lastReadBytes_(readBytes()) {
    if (gpuIndex < 0) return;
    nvml_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml_) return;
    auto init = reinterpret_cast<NvmlInit>(::dlsym(nvml_, "nvmlInit_v2"));
    auto handle = reinterpret_cast<NvmlGetHandle>(::dlsym(nvml_, "nvmlDeviceGetHandleByIndex_v2"));
    void* device = nullptr;
    if (init && handle && init() == 0 && handle(static_cast<unsigned>(gpuIndex), &device) == 0) nvmlDevice_ = device;
}

SystemMonitor::~SystemMonitor() {
    if (!nvml_) return;
    if (nvmlDevice_)
        if (auto shutdown = reinterpret_cast<NvmlShutdown>(::dlsym(nvml_, "nvmlShutdown"))) shutdown();
    ::dlclose(nvml_);
}

SystemEvent SystemMonitor::sample() {
    const auto now = Clock::now();
    const double wall = std::max(1e-6, std::chrono::duration<double>(now - last_).count());
    const double cpu = cpuSeconds();
    const int64_t read = readBytes();
    SystemEvent e;
    e.cpuPercent = 100.0 * (cpu - lastCpuSeconds_) / wall;
    e.rssMb = rssMb();
    e.readMbS = static_cast<double>(read - lastReadBytes_) / wall / 1e6;
    last_ = now;
    lastCpuSeconds_ = cpu;
    lastReadBytes_ = read;
    if (nvmlDevice_) {
        NvmlUtilization u{};
        NvmlMemory m{};
        auto util = reinterpret_cast<NvmlGetUtilization>(::dlsym(nvml_, "nvmlDeviceGetUtilizationRates"));
        auto mem = reinterpret_cast<NvmlGetMemory>(::dlsym(nvml_, "nvmlDeviceGetMemoryInfo"));
        if (util && util(nvmlDevice_, &u) == 0) e.gpuUtil = u.gpu;
        if (mem && mem(nvmlDevice_, &m) == 0) {
            e.gpuMemMb = static_cast<double>(m.used) / 1048576.0;
            e.gpuMemTotalMb = static_cast<double>(m.total) / 1048576.0;
        }
    }
    return e;
}

}  // namespace streetgan
