// std::from_chars for double, also where the standard library lacks it: libstdc++ has it from
// GCC 11, and the GPU bundle's floor build (packaging/gpu-bundle-floor.sh) compiles with Debian 11's
// GCC 10. Locale-independent either way (strtod_l with the "C" locale there).
#pragma once

#include <charconv>

namespace streetgan {

/// As std::from_chars(first, last, value) for a double in JSON's number syntax (what the callers
/// have checked): the pointer past the number, and errc() on success. Thread-safe.
std::from_chars_result parseDouble(const char* first, const char* last, double& value);

}  // namespace streetgan
