// The reference model presets of docs/design.md plus tiny-32 (trains visibly on 2 CPU cores).
#pragma once

#include <string>
#include <vector>

#include "base/model/ModelConfig.h"

namespace streetgan {

class Presets {
public:
    /// Names in display order: tiny-32, naive-64, safe-64, safe-128, msls-128.
    static std::vector<std::string> names();
    /// Throws ConfigError listing the known names when `name` is unknown.
    static ModelConfig get(const std::string& name);
    static bool exists(const std::string& name);
};

}  // namespace streetgan
