#include "base/run/SystemMonitor.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

namespace streetgan {
namespace {

namespace F = EventField;

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
using NvmlGetTotalEnergy = int (*)(void*, unsigned long long*);  // millijoules since the driver loaded (Volta and later)

// CPU time of every thread of the process, to the nanosecond (/proc/self/stat's utime and stime
// count 10 ms ticks: a first reading after one short step could read 0).
double cpuSeconds() {
    timespec ts{};
    if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double rssMb() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
    return 0;
}

// -1 when /proc/self/io cannot be read (a kernel without task I/O accounting).
int64_t readBytes() {
    std::ifstream in("/proc/self/io");  // rchar: every read(), page cache or not, mmap'ed files excluded
    for (std::string line; std::getline(in, line);)
        if (line.rfind("rchar:", 0) == 0) return std::stoll(line.substr(6));
    return -1;
}

// A sysfs counter (one decimal number). Returns the errno of what failed, 0 when read.
int readCounter(const std::string& path, uint64_t& value) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    char buf[64];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    const int err = n < 0 ? errno : 0;
    ::close(fd);
    if (n < 0) return err;
    buf[n] = 0;
    char* end = nullptr;
    errno = 0;
    value = std::strtoull(buf, &end, 10);
    return end == buf || errno != 0 ? EINVAL : 0;
}

std::string thisHost() {
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 && name[0] ? std::string(name) : std::string("this host");
}

}  // namespace

uint64_t SystemMonitor::raplDelta(uint64_t prev, uint64_t cur, uint64_t range) {
    if (cur >= prev) return cur - prev;
    return range > prev ? (range - prev) + cur : cur;  // wrapped past `range` back to 0
}

SystemMonitor::SystemMonitor(int gpuIndex, const std::string& device, const std::string& powercapRoot, const std::string& nvmlLibrary)
    : last_(Clock::now()), lastCpuSeconds_(cpuSeconds()), lastReadBytes_(readBytes()) {
    if (lastReadBytes_ < 0) unavailable_[F::kUnavailableRead] = "/proc/self/io cannot be read (a kernel without task I/O accounting)";
    openRapl(powercapRoot);
    openNvml(gpuIndex, device, nvmlLibrary);
}

void SystemMonitor::openRapl(const std::string& root) {
    // The package domains: intel-rapl:<N> (AMD's are named so too); their subdomains
    // intel-rapl:<N>:<M> (cores, uncore, DRAM) are parts of the package and would count twice.
    std::vector<std::string> names;
    if (DIR* d = ::opendir(root.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string n = e->d_name;
            if (n.rfind("intel-rapl:", 0) == 0 && n.find(':', 11) == std::string::npos) names.push_back(n);
        }
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    if (names.empty()) {
        unavailable_[F::kUnavailableCpuEnergy] = "no RAPL energy counters on " + thisHost() + " (a virtual machine, or a CPU without RAPL)";
        return;
    }
    for (const std::string& n : names) {
        RaplDomain dom;
        dom.energyPath = root + "/" + n + "/energy_uj";
        int err = readCounter(dom.energyPath, dom.last);
        if (err == 0) err = readCounter(root + "/" + n + "/max_energy_range_uj", dom.range);
        if (err != 0) {
            rapl_.clear();
            // Linux made energy_uj root-only in 2020 (CVE-2020-8694, the PLATYPUS side channel).
            unavailable_[F::kUnavailableCpuEnergy] = err == EACCES || err == EPERM
                                                         ? std::string("RAPL energy counters are not readable (root only)")
                                                         : "RAPL energy counter " + dom.energyPath + " cannot be read: " + std::strerror(err);
            return;
        }
        rapl_.push_back(dom);
    }
}

void SystemMonitor::openNvml(int gpuIndex, const std::string& device, const std::string& library) {
    if (gpuIndex < 0) {
        unavailable_[F::kUnavailableGpu] =
            device.rfind("cpu", 0) == 0 ? std::string("this run trains on the CPU") : "this run trains on " + device + ", not an NVIDIA GPU";
        return;
    }
    std::string why;
    nvml_ = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!nvml_) {
        why = "no NVIDIA driver (NVML, " + library + ") on " + thisHost();
    } else {
        auto init = reinterpret_cast<NvmlInit>(::dlsym(nvml_, "nvmlInit_v2"));
        auto handle = reinterpret_cast<NvmlGetHandle>(::dlsym(nvml_, "nvmlDeviceGetHandleByIndex_v2"));
        void* dev = nullptr;
        const int rc = init && handle ? init() : -1;
        nvmlInitialised_ = rc == 0;
        if (!nvmlInitialised_)
            why = "the NVIDIA driver (NVML) could not be initialised on " + thisHost() + " (error " + std::to_string(rc) + ")";
        else if (handle(static_cast<unsigned>(gpuIndex), &dev) != 0)
            why = "NVML has no GPU " + std::to_string(gpuIndex) + " on " + thisHost();
        else
            nvmlDevice_ = dev;
    }
    if (!why.empty()) {
        unavailable_[F::kUnavailableGpu] = why;
        unavailable_[F::kUnavailableGpuEnergy] = why;
        return;
    }
    gpuEnergy_ = gpuEnergyMj(gpuStartMj_);
    if (!gpuEnergy_) unavailable_[F::kUnavailableGpuEnergy] = "the GPU does not report its energy to NVML (GPUs before Volta do not)";
}

bool SystemMonitor::gpuEnergyMj(unsigned long long& mj) const {
    if (!nvmlDevice_) return false;
    auto energy = reinterpret_cast<NvmlGetTotalEnergy>(::dlsym(nvml_, "nvmlDeviceGetTotalEnergyConsumption"));
    return energy && energy(nvmlDevice_, &mj) == 0;
}

SystemMonitor::~SystemMonitor() {
    if (!nvml_) return;
    if (nvmlInitialised_)
        if (auto shutdown = reinterpret_cast<NvmlShutdown>(::dlsym(nvml_, "nvmlShutdown"))) shutdown();
    ::dlclose(nvml_);
}

SystemEvent SystemMonitor::sample() {
    const auto now = Clock::now();
    const double wall = std::max(1e-6, std::chrono::duration<double>(now - last_).count());
    const double cpu = cpuSeconds();
    const int64_t read = lastReadBytes_ < 0 ? -1 : readBytes();
    SystemEvent e;
    e.cpuPercent = 100.0 * (cpu - lastCpuSeconds_) / wall;
    e.rssMb = rssMb();
    if (read >= 0) e.readMbS = static_cast<double>(read - lastReadBytes_) / wall / 1e6;
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
    // Energy: the measurable parts, summed; a counter that fails to read once keeps its last value.
    std::string source;
    double joules = 0;
    if (!rapl_.empty()) {
        for (RaplDomain& d : rapl_) {
            uint64_t cur = 0;
            if (readCounter(d.energyPath, cur) != 0) continue;
            cpuJoules_ += static_cast<double>(raplDelta(d.last, cur, d.range)) / 1e6;
            d.last = cur;
        }
        joules += cpuJoules_;
        source = "CPU package (RAPL, all processes on the host)";
    }
    unsigned long long mj = 0;
    if (gpuEnergy_ && gpuEnergyMj(mj)) {
        joules += static_cast<double>(mj >= gpuStartMj_ ? mj - gpuStartMj_ : 0) / 1000.0;
        source += source.empty() ? "GPU (NVML)" : " + GPU (NVML)";
    }
    if (!source.empty()) {
        e.energyJ = joules;
        e.powerW = std::max(0.0, joules - lastEnergyJ_) / wall;
        e.energySource = source;
        lastEnergyJ_ = joules;
    }
    e.unavailable = unavailable_;
    return e;
}

}  // namespace streetgan
