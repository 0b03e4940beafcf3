// Deterministic 64-bit mixing (splitmix64) for deriving independent seeds from (seed, a, b):
// the same on every platform and thread, unlike std:: distributions.
#pragma once

#include <cstdint>

namespace streetgan {

class SeedHash {
public:
    static constexpr uint64_t mix(uint64_t x) {
        x += 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    }
    static constexpr uint64_t of(uint64_t seed, uint64_t a, uint64_t b = 0) { return mix(mix(mix(seed) ^ a) ^ (b * 0x632be59bd9b4e019ULL)); }
};

}  // namespace streetgan
