// What a host is, as far as running streetgan-trainer there goes: kernel and architecture, the
// distribution, the C library and C++ runtime levels, the Pythons that import torch (version and
// CUDA build, the GPU architectures it was compiled for), the GPUs, the C++ compiler and CMake.
// One shell script gathers it in one SSH exec (script(), POSIX sh, no root, nothing installed);
// parse() reads its key=value output. TrainerPlan decides from it what to install.
//
// Value type; any thread.
#pragma once

#include <string>
#include <vector>

namespace streetgan {

/// A dotted version compared number by number ("2.9" < "2.10" < "2.10.1"); non-digits end a part.
int compareVersions(const std::string& a, const std::string& b);

struct HostPython {
    std::string path;                ///< the interpreter as found (a path, or "python3" on PATH)
    std::string version;             ///< Python's, e.g. "3.12.3"
    std::string torch;               ///< torch.__version__, e.g. "2.11.0+cu130"; empty: no torch
    std::string torchCuda;           ///< torch.version.cuda, e.g. "13.0"; empty: a CPU build
    std::vector<std::string> archs;  ///< the GPU code compiled in ("sm_75", "compute_120"); empty when unknown
    std::string torchProblem;        ///< why `import torch` failed (its last line), when it did

    bool hasTorch() const { return !torch.empty(); }
    /// "2.11" of "2.11.0+cu130"; empty without torch.
    std::string torchMinor() const;
};

struct HostGpu {
    std::string name;        ///< e.g. "Tesla V100-SXM2-16GB"
    std::string capability;  ///< compute capability, e.g. "7.0"; empty when the driver does not say
};

struct HostPlatform {
    std::string kernel;                     ///< uname -s: "Linux", "Darwin", ...
    std::string machine;                    ///< uname -m: "x86_64", "aarch64", "i686", ...
    std::string osId, osVersionId, osName;  ///< /etc/os-release: ID, VERSION_ID, PRETTY_NAME
    std::string glibc;                      ///< "2.36"; empty: no glibc (musl, macOS) or not found
    std::string glibcxx;                    ///< the highest GLIBCXX_ version of the host's libstdc++, e.g. "3.4.30"
    std::string cxx;                        ///< the C++ compiler: "g++ 12.2.0"; empty: none
    std::string cmake;                      ///< cmake's version; empty: none on PATH
    std::string nvcc;                       ///< the CUDA toolkit's nvcc version ("13.0"); empty: none found
    bool hasConda = false;
    std::vector<HostPython> pythons;  ///< each interpreter found, in the order looked at
    std::vector<HostGpu> gpus;        ///< NVIDIA GPUs (nvidia-smi); empty: none, or no driver

    /// The shell script (POSIX sh) whose output parse() reads. `extraPythons`: interpreters to
    /// look at first (a venv's or a conda env's python the user named). Runs in a few seconds
    /// (importing torch); each Python is given 120 s.
    static std::string script(const std::vector<std::string>& extraPythons = {});
    /// The part of script() that prints os_id, os_version, os_name and conda (RemoteTrainerSetup's
    /// trainer probe runs it too, and reads it with parse()).
    static std::string distributionScript();
    /// Reads script()'s output; unknown keys are ignored (a newer script, an older reader).
    static HostPlatform parse(const std::string& output);

    /// The Python whose torch is the newest (the first among equals); nullptr: none has torch.
    const HostPython* bestTorch() const;
    /// "Ubuntu 22.04.4 LTS, x86_64, glibc 2.35" (what the set-up dialog shows of the host).
    std::string summary() const;
    bool isDebian12() const { return osId == "debian" && osVersionId == "12"; }
};

}  // namespace streetgan
