#include "base/model/Presets.h"

#include "base/util/Errors.h"

namespace streetgan {
namespace {

struct Entry {
    const char* name;
    int64_t nz, ngf, ndf, imgSize;
};

// Numbers from docs/design.md's table; tiny-32 is ours (about 0.4 M + 0.2 M parameters).
constexpr Entry kPresets[] = {
    {"tiny-32", 64, 32, 32, 32},      {"naive-64", 100, 64, 64, 64},   {"safe-64", 256, 256, 64, 64},
    {"safe-128", 256, 256, 128, 128}, {"msls-128", 128, 128, 32, 128},
};

}  // namespace

std::vector<std::string> Presets::names() {
    std::vector<std::string> out;
    for (const auto& e : kPresets) out.emplace_back(e.name);
    return out;
}

bool Presets::exists(const std::string& name) {
    for (const auto& e : kPresets)
        if (name == e.name) return true;
    return false;
}

ModelConfig Presets::get(const std::string& name) {
    for (const auto& e : kPresets) {
        if (name == e.name) {
            ModelConfig c;
            c.preset = e.name;
            c.nz = e.nz;
            c.ngf = e.ngf;
            c.ndf = e.ndf;
            c.nc = 3;
            c.imgSize = e.imgSize;
            return c;
        }
    }
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("unknown preset '" + name + "': use one of " + known);
}

}  // namespace streetgan
