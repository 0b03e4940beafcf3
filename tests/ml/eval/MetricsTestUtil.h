// Helpers shared by the metrics tests: raw float files for the Python references, the reference
// interpreter (Debian's python3 with python3-torch / numpy / scipy), and the two small TorchScript
// feature networks tests/python/make_feature_net.py writes once per test process.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "support/TempDir.h"

namespace streetgan::test {

inline void writeRaw(const torch::Tensor& t, const std::string& path) {
    auto c = t.to(torch::kFloat).contiguous();
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(c.data_ptr<float>()), static_cast<std::streamsize>(c.numel() * 4));
}

inline std::string slurpFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

inline std::vector<double> readDoubles(const std::string& path) {
    const std::string bytes = slurpFile(path);
    std::vector<double> out(bytes.size() / 8);
    std::memcpy(out.data(), bytes.data(), out.size() * 8);
    return out;
}

inline torch::Tensor readFloats(const std::string& path, int64_t rows) {
    const std::string bytes = slurpFile(path);
    auto t = torch::empty({static_cast<int64_t>(bytes.size() / 4)}, torch::kFloat);
    std::memcpy(t.data_ptr<float>(), bytes.data(), bytes.size() / 4 * 4);
    return t.reshape({rows, -1});
}

/// True when the reference interpreter imports every module in `modules` ("numpy, scipy").
inline bool pythonHas(const std::string& modules) {
    const std::string cmd = std::string(STREETGAN_PYTHON) + " -c 'import " + modules + "' >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

/// Runs tests/python/<script> with `args` (already quoted as needed); true on exit code 0.
inline bool runPython(const std::string& scriptAndArgs) {
    const std::string cmd = std::string(STREETGAN_PYTHON) + " " + STREETGAN_TEST_PYTHON_DIR + "/" + scriptAndArgs;
    return std::system(cmd.c_str()) == 0;
}

/// Folder holding feat_kw.pt and feat_plain.pt, written once per process; "" when python3-torch
/// is missing (tests then skip).
inline const std::string& featureNetDir() {
    static TempDir dir;
    static const std::string path = [] {
        if (!pythonHas("torch")) return std::string();  // tests skip: no python3-torch
        // With torch there, a fixture that cannot be written is a failure, never a skip.
        if (!runPython("make_feature_net.py '" + dir.path().string() + "'"))
            throw std::runtime_error(std::string("tests/python/make_feature_net.py failed although ") + STREETGAN_PYTHON + " has torch");
        return dir.path().string();
    }();
    return path;
}

/// |got - want| <= tol * max(1, |want|).
inline ::testing::AssertionResult relClose(double got, double want, double tol) {
    if (std::isfinite(got) && std::abs(got - want) <= tol * std::max(1.0, std::abs(want))) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (diff " << got - want << ")";
}

}  // namespace streetgan::test
