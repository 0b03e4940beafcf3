// FNV-1a (64-bit) of a string, and as 16 lowercase hex digits: the file name of a cache entry keyed
// by a string (a path, an endpoint and a URL), the same across runs, builds and machines, which
// std::hash is not. Not a content hash (ContentHash is).
//
// Thread contract: stateless.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace streetgan {

class Fnv1a {
public:
    static constexpr uint64_t of(std::string_view s) {
        uint64_t h = 1469598103934665603ULL;
        for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
        return h;
    }
    static std::string hex(std::string_view s) {
        char out[17];
        std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(of(s)));
        return out;
    }
};

}  // namespace streetgan
