#include "base/latent/WalkRule.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "base/util/Errors.h"

namespace streetgan {

WalkRule::Place WalkRule::place(int64_t frame, int64_t keyframes, int framesPerSegment, bool loop) {
    const int64_t n = frameCount(keyframes, framesPerSegment, loop);
    if (n < 1)
        throw ConfigError("latent walk: no frames (" + std::to_string(keyframes) + " keyframes, " + std::to_string(framesPerSegment) + " frames per segment)");
    if (loop) {
        frame %= n;
        if (frame < 0) frame += n;
    } else if (frame < 0 || frame >= n) {
        throw ConfigError("latent path: frame " + std::to_string(frame) + " is outside 0.." + std::to_string(n - 1));
    }
    const int64_t f = framesPerSegment;
    Place p;
    p.segment = frame / f;
    int64_t j = frame % f;
    if (!loop && keyframes > 1 && p.segment == keyframes - 1) {
        p.segment = keyframes - 2;  // the final frame: the end of the last segment
        j = f;
    }
    p.from = p.segment;
    p.to = (p.segment + 1) % keyframes;
    p.u = static_cast<double>(j) / static_cast<double>(f);
    return p;
}

void WalkRule::checkRange(const TRange& range, const std::string& key) {
    const auto ok = [](double v) { return std::isfinite(v) && std::abs(v) <= kMaxAbsT; };
    if (ok(range.start) && ok(range.end)) return;
    const auto text = [](double v) {
        if (std::isnan(v)) return std::string("NaN");
        if (std::isinf(v)) return std::string(v > 0 ? "Infinity" : "-Infinity");
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return std::string(buf);
    };
    throw ConfigError("session key '" + key + "' is [" + text(range.start) + ", " + text(range.end) +
                      "]; use [start, end]: two numbers within -1e6..1e6 (e.g. [0, 8]; [0, 1] goes from keyframe to keyframe)");
}

}  // namespace streetgan
