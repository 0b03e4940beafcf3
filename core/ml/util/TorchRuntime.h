// Which LibTorch this process runs against, found at run time: the library file the dynamic
// loader picked (dladdr on a LibTorch function) and, where that file lies in a pip or conda torch
// (torch/lib/ beside torch/version.py), that torch's version and CUDA build. A trainer built
// against one torch and run against another (the GPU bundle's case) reports the one it runs
// against here; TORCH_VERSION is only what it was compiled with.
//
// Value type; any thread.
#pragma once

#include <string>

namespace streetgan {

struct TorchRuntime {
    std::string library;  ///< the loaded libtorch_cpu file; empty when dladdr cannot say
    std::string version;  ///< torch/version.py's __version__, e.g. "2.11.0+cu130"; empty outside a Python torch
    std::string cuda;     ///< its `cuda`, e.g. "13.0"; empty for a CPU build or outside a Python torch

    /// The process's own (computed once).
    static const TorchRuntime& current();
    /// Reads `versionPy` (a torch/version.py) into version and cuda; false when it cannot be read.
    bool readVersionFile(const std::string& versionPy);
};

}  // namespace streetgan
