#include "base/util/GpuPeak.h"

#include <array>

namespace streetgan {
namespace {

struct Row {
    const char* name;               // a substring of the CUDA device name; the first match wins (PCIe before the SXM default)
    double bf16, fp16, tf32, fp32;  // 0: the chip has no such tensor-core path
};

constexpr std::array<Row, 10> kRows{{
    {"H100 PCIe", 756.0, 756.0, 378.0, 51.2},
    {"H100 NVL", 835.0, 835.0, 417.5, 60.0},
    {"H100", 989.4, 989.4, 494.7, 66.9},  // SXM
    {"H200", 989.4, 989.4, 494.7, 66.9},
    {"A100", 312.0, 312.0, 156.0, 19.5},
    {"L40S", 362.0, 362.0, 183.0, 91.6},
    {"L40", 181.0, 181.0, 90.5, 90.5},
    {"L4", 121.0, 121.0, 60.0, 30.3},
    {"V100", 0.0, 125.0, 0.0, 15.7},
    {"T4", 0.0, 65.0, 0.0, 8.1},
}};

}  // namespace

std::optional<double> GpuPeak::tflops(const std::string& gpuName, const std::string& precision) {
    for (const Row& r : kRows) {
        if (gpuName.find(r.name) == std::string::npos) continue;
        const double v = precision == "bf16" ? r.bf16 : precision == "fp16" ? r.fp16 : precision == "tf32" ? r.tf32 : precision == "fp32" ? r.fp32 : 0.0;
        if (v > 0) return v;
        return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace streetgan
