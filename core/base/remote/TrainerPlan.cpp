#include "base/remote/TrainerPlan.h"

#include <algorithm>
#include <filesystem>
#include <regex>

namespace streetgan {

namespace {

std::string joinNames(const std::vector<TrainerBundle>& bundles) {
    std::vector<std::string> minors;
    for (const auto& b : bundles)
        if (std::find(minors.begin(), minors.end(), b.torchMinor) == minors.end()) minors.push_back(b.torchMinor);
    std::sort(minors.begin(), minors.end(), [](const std::string& a, const std::string& b) { return compareVersions(a, b) < 0; });
    std::string s;
    for (const auto& m : minors) s += (s.empty() ? "" : ", ") + m;
    return s.empty() ? "none" : s;
}

// "7.0" -> 70; -1 when not a capability.
int capabilityNumber(const std::string& cap) {
    std::smatch m;
    static const std::regex re(R"((\d+)\.(\d+))");
    if (!std::regex_match(cap, m, re)) return -1;
    return std::stoi(m[1]) * 10 + std::stoi(m[2]);
}

// "sm_86" / "compute_120" -> 86 / 120; -1 otherwise.
int archNumber(const std::string& arch, const std::string& prefix) {
    if (arch.rfind(prefix, 0) != 0) return -1;
    const std::string n = arch.substr(prefix.size());
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(n);
}

// The lowest capability a torch build of this CUDA version has code for, when its arch list is
// not known (torch's own wheels: cu126 from sm_50, cu128/cu129 from sm_70, cu130 from sm_75).
int lowestCapabilityOf(const std::string& cuda) {
    if (compareVersions(cuda, "13") >= 0) return 75;
    if (compareVersions(cuda, "12.8") >= 0) return 70;
    return 50;
}

// The oldest GCC the trainer is built and tested with: 10, Debian 11's, which builds the GPU bundle
// (for torch 2.14+ too, through cmake/TorchGcc10.cmake). "g++ 8.5.0" -> its major version; -1 when
// the compiler is not GCC's or its version is unknown (the build itself then judges).
constexpr int kMinGcc = 10;
int gccMajor(const std::string& cxx) {
    static const std::regex re(R"((c\+\+|g\+\+) (\d+)(\..*)?)");
    std::smatch m;
    if (!std::regex_match(cxx, m, re)) return -1;
    return std::stoi(m[2]);
}

}  // namespace

std::optional<TrainerBundle> TrainerBundle::fromFileName(const std::string& path) {
    static const std::regex re(R"(streetgan-trainer-bundle-torch(\d+\.\d+)-glibc(\d+\.\d+)(-glibcxx(\d+\.\d+\.\d+))?-x86_64\.tar\.gz)");
    std::smatch m;
    const std::string name = std::filesystem::path(path).filename().string();
    if (!std::regex_match(name, m, re)) return std::nullopt;
    return TrainerBundle{path, m[1], m[2], m[4]};
}

std::string TrainerBundle::misfit(const HostPlatform& platform, const std::string& host) const {
    if (compareVersions(glibc, platform.glibc) > 0)
        return "the bundle for torch " + torchMinor + " needs glibc " + glibc + " and " + host + " has " + platform.glibc;
    // An unknown libstdc++ level (not found by the probe) is left to the install's own check.
    if (!glibcxx.empty() && !platform.glibcxx.empty() && compareVersions(glibcxx, platform.glibcxx) > 0)
        return "the bundle for torch " + torchMinor + " needs libstdc++ with GLIBCXX_" + glibcxx + " and " + host + "'s stops at GLIBCXX_" + platform.glibcxx;
    return {};
}

std::vector<TrainerBundle> TrainerBundle::findIn(const std::string& dir) {
    std::vector<TrainerBundle> out;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec))
            if (auto b = fromFileName(it->path().string())) out.push_back(*b);
    std::sort(out.begin(), out.end(), [](const TrainerBundle& a, const TrainerBundle& b) {
        const int c = compareVersions(a.torchMinor, b.torchMinor);
        return c != 0 ? c > 0 : compareVersions(a.glibc, b.glibc) < 0;
    });
    return out;
}

std::string TrainerBundle::fileName(const std::string& torchMinor, const std::string& glibc, const std::string& glibcxx) {
    return "streetgan-trainer-bundle-torch" + torchMinor + "-glibc" + glibc + (glibcxx.empty() ? "" : "-glibcxx" + glibcxx) + "-x86_64.tar.gz";
}

std::string TrainerPlan::gpuAdviceFor(const HostPlatform& platform, const HostPython& python) {
    if (platform.gpus.empty() || !python.hasTorch()) return {};
    const HostGpu& gpu = platform.gpus.front();
    const std::string minor = python.torchMinor();
    if (python.torchCuda.empty())
        return gpu.name + " is there, but torch " + python.torch + " in " + python.path +
               " is a CPU build: to train on the GPU, install a CUDA build (pip install --force-reinstall torch==" + minor + ".*)";
    const int cap = capabilityNumber(gpu.capability);
    if (cap < 0) return {};  // a driver that does not report the capability: nothing to judge
    bool fits = false;
    int lowest = 1000;
    bool anyArch = false;
    for (const auto& a : python.archs) {
        // Binary code runs on GPUs of the same major version and a higher minor one; PTX is
        // compiled by the driver for any newer GPU.
        if (const int sm = archNumber(a, "sm_"); sm >= 0) {
            anyArch = true;
            lowest = std::min(lowest, sm);
            fits = fits || (sm / 10 == cap / 10 && sm <= cap);
        } else if (const int ptx = archNumber(a, "compute_"); ptx >= 0) {
            anyArch = true;
            lowest = std::min(lowest, ptx);
            fits = fits || ptx <= cap;
        }
    }
    if (!anyArch) {
        lowest = lowestCapabilityOf(python.torchCuda);
        fits = cap >= lowest;
    }
    if (fits) return {};
    const std::string sm = "sm_" + std::to_string(cap);
    const std::string needs = "sm_" + std::to_string(lowest);
    if (cap < 50) return gpu.name + " (" + sm + ") is older than any torch " + kMinTorch + "+ supports (sm_50 and newer): train on the CPU, or on a newer GPU";
    // cu126 is the last CUDA build of torch with code for Maxwell to Volta (sm_50 to sm_70).
    return gpu.name + " (" + sm + ") is older than torch " + python.torch + " (CUDA " + python.torchCuda + ") supports (" + needs +
           " and newer): install its CUDA 12.6 build: pip install --force-reinstall torch==" + minor + ".* --index-url https://download.pytorch.org/whl/cu126";
}

TrainerPlan TrainerPlan::choose(const HostPlatform& platform, const std::vector<TrainerBundle>& bundles, bool haveDeb, const std::string& host) {
    TrainerPlan plan;
    auto refuse = [&](const std::string& why) {
        plan.kind = Kind::Unsupported;
        plan.reason = why;
        return plan;
    };
    if (platform.kernel.empty()) return refuse(host + " did not say what system it runs (no uname): streetgan-trainer needs x86_64 Linux");
    if (platform.kernel != "Linux")
        return refuse(host + " runs " + (platform.kernel == "Darwin" ? std::string("macOS (Darwin)") : platform.kernel) +
                      ": streetgan-trainer runs on x86_64 Linux only; set it up on a Linux GPU box and watch it from here");
    if (platform.machine != "x86_64") {
        const bool arm = platform.machine.rfind("aarch64", 0) == 0 || platform.machine.rfind("arm", 0) == 0;
        const bool bits32 = platform.machine == "i386" || platform.machine == "i686" || platform.machine.rfind("armv7", 0) == 0;
        return refuse(host + " is " + platform.machine +
                      (bits32 ? " (32-bit)"
                       : arm  ? " (ARM)"
                              : "") +
                      ": streetgan-trainer is built for x86_64 Linux only; use an x86_64 host");
    }
    if (platform.glibc.empty())
        return refuse(host + " has no GNU C library (musl, e.g. Alpine?): torch's wheels and streetgan-trainer need glibc " + kMinGlibc +
                      " or newer; use a glibc distribution (Ubuntu, Debian, RHEL/Rocky, Amazon Linux)");
    if (compareVersions(platform.glibc, kMinGlibc) < 0)
        return refuse(host + " has glibc " + platform.glibc + ", older than " + kMinGlibc +
                      " (the floor of pip's torch wheels and of streetgan-trainer): use a host with RHEL/Rocky 8, Ubuntu 20.04, Debian 11, "
                      "Amazon Linux 2023 or newer");

    const HostPython* py = platform.bestTorch();
    const bool torchOk = py && compareVersions(py->torch, kMinTorch) >= 0;
    if (!torchOk && haveDeb && platform.isDebian12()) {
        plan.kind = Kind::Deb;
        plan.reason = host + " is Debian 12 with " + (py ? "torch " + py->torch + " only" : std::string("no PyTorch")) +
                      ": its package runs on the CPU with Debian's LibTorch 1.13; for a GPU trainer install torch " + kMinTorch +
                      "+ (pip, in a venv) and check again";
        return plan;
    }
    if (!py) {
        std::string why;
        for (const auto& p : platform.pythons)
            if (!p.torchProblem.empty()) {
                why = " (" + p.path + ": " + p.torchProblem + ")";
                break;
            }
        return refuse("no Python on " + host + " imports torch" + why + ": install PyTorch " + kMinTorch +
                      " or newer (python3 -m venv ~/torch && ~/torch/bin/pip install torch), then set up again naming that venv");
    }
    plan.python = py->path;
    plan.torch = py->torch;
    plan.gpuAdvice = gpuAdviceFor(platform, *py);
    if (!torchOk)
        return refuse("torch " + py->torch + " in " + py->path + " on " + host + " is older than " + kMinTorch +
                      ", the oldest streetgan-trainer supports: pip install --upgrade torch (into that environment or a new venv)");

    const std::string where = "torch " + py->torch + (py->torchCuda.empty() ? " (CPU)" : " (CUDA " + py->torchCuda + ")") + " in " + py->path;
    std::string noBundle = "no prebuilt bundle for torch " + py->torchMinor() + " (the app has: " + joinNames(bundles) + ")";
    for (const auto& b : bundles) {
        if (b.torchMinor != py->torchMinor()) continue;
        if (const std::string why = b.misfit(platform, host); !why.empty()) {
            noBundle = why;
            continue;
        }
        plan.kind = Kind::Bundle;
        plan.bundle = b;
        plan.reason = where + ", glibc " + platform.glibc + ": the prebuilt bundle for torch " + b.torchMinor + " fits (it needs glibc " + b.glibc +
                      (b.glibcxx.empty() ? "" : ", GLIBCXX_" + b.glibcxx) + "); nothing is compiled on " + host;
        return plan;
    }
    if (platform.cxx.empty())
        return refuse(where + " on " + host + ": " + noBundle +
                      ", and no C++ compiler there to build one: install g++ (dnf install gcc-c++, or apt install g++), or a torch the app has a "
                      "bundle for");
    if (const int major = gccMajor(platform.cxx); major >= 0 && major < kMinGcc)
        return refuse(where + " on " + host + ": " + noBundle + ", and its compiler, " + platform.cxx + ", is older than GCC " + std::to_string(kMinGcc) +
                      ", the oldest that builds streetgan-trainer: install a newer one first on PATH (RHEL/Rocky 8: sudo dnf install gcc-toolset-12, "
                      "then PATH=/opt/rh/gcc-toolset-12/root/usr/bin:$PATH in ~/.bashrc), or a torch the app has a bundle for");
    plan.kind = Kind::HostBuild;
    // The source archive carries every library (third_party/); build-trainer.sh takes CMake and
    // Ninja from pip where the host has none, and names anything else that is missing. A CUDA
    // torch's own CMake files want nvcc; without it, build-trainer.sh imports LibTorch from the
    // package (cmake/TorchPackage.cmake) with the CUDA headers of pip's wheels.
    std::string toolkit;
    if (!py->torchCuda.empty())
        toolkit = platform.nvcc.empty() ? " (no CUDA toolkit needed: the CUDA headers come with torch's wheels)" : " and nvcc " + platform.nvcc;
    plan.reason = where + ": " + noBundle + "; builds the lean trainer on " + host + " against it with " + platform.cxx + toolkit +
                  " (no root; the libraries travel in the source archive)";
    return plan;
}

}  // namespace streetgan
