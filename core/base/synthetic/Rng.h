// Internal to SyntheticStreets: the hash functions and the splitmix64 generator every random
// draw of a scene comes from, and the independent streams that keep one part of the scene's draws
// from shifting another's. Identical on every platform (no <random> distributions).
// Thread contract: an Rng is a local of one thread; the hash functions are pure.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/synthetic/SceneMaths.h"

namespace streetgan::synthetic {

inline uint64_t fmix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
inline uint64_t hashPair(uint64_t a, uint64_t b) { return fmix(fmix(a) ^ (b * 0xC2B2AE3D27D4EB4Full)); }
inline float hashUnit(uint64_t h) { return static_cast<float>(h >> 40) * (1.f / 16777216.f); }

/// splitmix64: tiny, full period, and identical on every platform (unlike <random> distributions).
class Rng {
public:
    explicit Rng(uint64_t seed) : s_(seed) {}
    uint64_t next() {
        uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    float uni() { return hashUnit(next()); }  // [0, 1)
    float range(float a, float b) { return a + (b - a) * uni(); }
    int irange(int lo, int hi) { return lo + static_cast<int>((next() >> 33) % static_cast<uint64_t>(hi - lo + 1)); }
    bool chance(float p) { return uni() < p; }
    Col jitter(Col c, float amount) {
        const float k = range(1.f - amount, 1.f + amount);
        return {c.r * k * range(1.f - amount * 0.5f, 1.f + amount * 0.5f), c.g * k, c.b * k * range(1.f - amount * 0.5f, 1.f + amount * 0.5f)};
    }
    template <size_t N>
    Col pick(const Col (&palette)[N]) {
        return palette[irange(0, static_cast<int>(N) - 1)];
    }

private:
    uint64_t s_;
};

// Independent streams per part of the scene so that one part's draws never shift another's.
enum Stream : uint64_t { kParams = 1, kSky, kBackdrop, kRoad, kBuildLeft, kBuildRight, kProps, kTraffic };

}  // namespace streetgan::synthetic
