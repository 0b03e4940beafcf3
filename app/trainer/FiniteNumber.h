// CLI11 validator rejecting NaN and infinities (CLI::Range lets NaN through: every comparison
// with NaN is false).
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

namespace streetgan {

class FiniteNumber : public CLI::Validator {
public:
    FiniteNumber() : CLI::Validator("FINITE") {
        func_ = [](std::string& s) -> std::string {
            try {
                size_t used = 0;
                const double v = std::stod(s, &used);
                if (used == s.size() && std::isfinite(v)) return {};
            } catch (const std::exception&) {}
            return "'" + s + "' is not a finite number";
        };
    }
};

}  // namespace streetgan
