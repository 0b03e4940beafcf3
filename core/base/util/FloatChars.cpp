#include "base/util/FloatChars.h"

// STREETGAN_FLOATCHARS_FALLBACK: the strtod_l path where std::from_chars exists too (its test).
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L && !defined(STREETGAN_FLOATCHARS_FALLBACK)
#define STREETGAN_FLOATCHARS_STD 1
#endif
#ifndef STREETGAN_FLOATCHARS_STD
#include <cerrno>
#include <clocale>
#include <cstdlib>
#include <string>

#include <locale.h>
#endif

namespace streetgan {

std::from_chars_result parseDouble(const char* first, const char* last, double& value) {
#ifdef STREETGAN_FLOATCHARS_STD
    return std::from_chars(first, last, value);
#else
    static const locale_t c = ::newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
    const std::string text(first, last);  // strtod needs a terminated string
    char* end = nullptr;
    errno = 0;
    const double v = ::strtod_l(text.c_str(), &end, c);
    std::from_chars_result r{first + (end - text.c_str()), std::errc()};
    if (end == text.c_str())
        r.ec = std::errc::invalid_argument;
    else if (errno == ERANGE)
        r.ec = std::errc::result_out_of_range;
    else
        value = v;
    return r;
#endif
}

}  // namespace streetgan
