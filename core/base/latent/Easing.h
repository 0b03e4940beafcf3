// Easing curves for latent walks: a map of the segment parameter t in [0, 1] onto [0, 1] with
// e(0) = 0 and e(1) = 1, monotonically non-decreasing.
//   linear       e(t) = t
//   ease-in      e(t) = t^3                       (cubic: starts slowly, ends fast)
//   ease-out     e(t) = 1 - (1 - t)^3              (cubic: starts fast, ends slowly)
//   ease-in-out  e(t) = 3 t^2 - 2 t^3             (smoothstep: zero slope at both keyframes)
// Symmetries: ease-in-out(1 - t) = 1 - ease-in-out(t); ease-out(t) = 1 - ease-in(1 - t).
// t outside [0, 1] is clamped first. Names are those of docs/cli.md's session file ("linear",
// "ease-in-out", "ease-in", "ease-out").
// Stateless and thread-safe.
#pragma once

#include <string>
#include <vector>

namespace streetgan {

class Easing {
public:
    enum class Kind { Linear, EaseInOut, EaseIn, EaseOut };

    /// e(t) for t clamped to [0, 1].
    static double apply(Kind kind, double t);
    /// "linear" | "ease-in-out" | "ease-in" | "ease-out"; throws ConfigError naming `key` and the
    /// allowed names for anything else.
    static Kind parse(const std::string& name, const std::string& key = "easing");
    static std::string name(Kind kind);
    /// All names, in the order of Kind.
    static std::vector<std::string> names();
};

}  // namespace streetgan
