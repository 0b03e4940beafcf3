#include "ml/util/TorchRuntime.h"

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <torch/cuda.h>

namespace streetgan {

bool TorchRuntime::readVersionFile(const std::string& versionPy) {
    std::ifstream in(versionPy);
    if (!in) return false;
    // torch/version.py: `__version__ = '2.11.0+cu130'` and `cuda: Optional[str] = '13.0'` (or None).
    static const std::regex versionRe(R"(^__version__\s*=\s*['"]([^'"]+)['"])");
    static const std::regex cudaRe(R"(^cuda\s*(:[^=]*)?=\s*['"]([^'"]+)['"])");
    std::smatch m;
    for (std::string l; std::getline(in, l);) {
        if (std::regex_search(l, m, versionRe))
            version = m[1];
        else if (std::regex_search(l, m, cudaRe))
            cuda = m[2];
    }
    return !version.empty();
}

const TorchRuntime& TorchRuntime::current() {
    static const TorchRuntime runtime = [] {
        TorchRuntime r;
        Dl_info info{};
        // A function of libtorch_cpu (the API's own), so the file is the LibTorch, not our binary.
        if (::dladdr(reinterpret_cast<void*>(&torch::cuda::is_available), &info) != 0 && info.dli_fname) {
            std::error_code ec;
            const auto lib = std::filesystem::canonical(info.dli_fname, ec);
            r.library = ec ? std::string(info.dli_fname) : lib.string();
            // pip and conda: site-packages/torch/lib/libtorch_cpu.so beside site-packages/torch/version.py.
            const auto versionPy = std::filesystem::path(r.library).parent_path().parent_path() / "version.py";
            r.readVersionFile(versionPy.string());
        }
        return r;
    }();
    return runtime;
}

}  // namespace streetgan
