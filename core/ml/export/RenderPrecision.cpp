#include "ml/export/RenderPrecision.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "base/util/Errors.h"

namespace streetgan {

namespace {

struct Bf16Isa {
    bool avx512 = false, amx = false;
};

Bf16Isa detect() {
    Bf16Isa isa;
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return isa;  // no OSXSAVE: no xgetbv
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    // XCR0: SSE, AVX, the opmask and both ZMM halves (bits 1, 2, 5, 6, 7) for AVX-512; the tile
    // configuration and data (bits 17, 18) for AMX. Linux also wants a per-process permission for
    // AMX's tile data, which oneDNN asks for itself (and falls back to AVX-512 when refused).
    const bool zmm = (lo & 0xE6u) == 0xE6u;
    const bool tiles = (lo & (3u << 17)) == (3u << 17);
    if (__get_cpuid_max(0, nullptr) < 7) return isa;
    __cpuid_count(7, 0, a, b, c, d);
    const bool avx512f = (b & (1u << 16)) != 0;
    const bool amxBf16 = (d & (1u << 22)) != 0, amxTile = (d & (1u << 24)) != 0;
    __cpuid_count(7, 1, a, b, c, d);
    const bool avx512Bf16 = (a & (1u << 5)) != 0;
    isa.avx512 = zmm && avx512f && avx512Bf16;
    isa.amx = zmm && tiles && amxBf16 && amxTile;
    (void)hi;
#endif
    return isa;
}

const Bf16Isa& isa() {
    static const Bf16Isa found = detect();
    return found;
}

}  // namespace

void RenderPrecision::check(const std::string& asked) {
    if (asked != "auto" && asked != "bf16" && asked != "fp32")
        throw ConfigError("precision '" + asked + "' is unknown; use auto (bf16 where it pays), bf16 or fp32 (render's exact frames)");
}

RenderPrecision::Precision RenderPrecision::choose(const std::string& asked, const ModelConfig& model, const c10::Device& device) {
    check(asked);
    if (asked == "fp32") return Precision::Float32;
    if (asked == "bf16") {
        if (!device.is_cpu())
            throw ConfigError("precision 'bf16' renders on the CPU, but the device is " + device.str() + "; use --precision fp32 or auto there");
        return Precision::BFloat16;
    }
    const bool pays = device.is_cpu() && cpuBf16() && frameGflop(model) >= kAutoMinGflop;
    return pays ? Precision::BFloat16 : Precision::Float32;
}

bool RenderPrecision::cpuBf16() { return isa().avx512 || isa().amx; }

std::string RenderPrecision::cpuBf16Name() { return isa().amx ? "amx-bf16" : isa().avx512 ? "avx512-bf16" : "none"; }

double RenderPrecision::frameGflop(const ModelConfig& model) {
    // model/Generator.h's layers: nz -> C on 4x4 (C = ngf << (stages - 1)), then C -> C/2 doubling
    // the edge per stage, then C -> nc. A transposed convolution costs 2 x Cin x Cout x k^2 per
    // input pixel (k = 4).
    const int stages = model.stages();
    double ch = static_cast<double>(model.ngf << (stages > 0 ? stages - 1 : 0));
    double flop = 2.0 * static_cast<double>(model.nz) * ch * 16.0;
    double edge = 4.0;
    for (int s = 1; s < stages; ++s) {
        flop += 2.0 * ch * (ch / 2.0) * 16.0 * edge * edge;
        ch /= 2.0;
        edge *= 2.0;
    }
    flop += 2.0 * ch * static_cast<double>(model.nc) * 16.0 * edge * edge;
    return flop / 1e9;
}

}  // namespace streetgan
