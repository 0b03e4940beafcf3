// FloatChars.cpp compiled on its strtod_l path (GCC 10's), for test_float_chars_fallback; a file of
// its own so that the library's FloatChars.cpp is compiled once per configuration (the partial-
// configuration checks compare each source's one compile command).
#define STREETGAN_FLOATCHARS_FALLBACK 1
#include "base/util/FloatChars.cpp"
