// The math functions whose default symbol version glibc 2.29 renewed (new versions without the
// SVID error wrapper, same results): a build with STREETGAN_GLIBC_FLOOR links every call to them
// here (-Wl,--wrap, cmake/GlibcFloor.cmake), and these call the version glibc 2.2.5 onwards has,
// so that no program needs GLIBC_2.29 (RHEL/Rocky 8 and Debian 10 have glibc 2.28).
#include <cmath>

#define STREETGAN_OLD_MATH(name)                    \
    extern "C" double streetgan_old_##name(double); \
    __asm__(".symver streetgan_old_" #name "," #name "@GLIBC_2.2.5");
#define STREETGAN_OLD_MATH2(name)                           \
    extern "C" double streetgan_old_##name(double, double); \
    __asm__(".symver streetgan_old_" #name "," #name "@GLIBC_2.2.5");

STREETGAN_OLD_MATH(exp)
STREETGAN_OLD_MATH(exp2)
STREETGAN_OLD_MATH(log)
STREETGAN_OLD_MATH(log2)
STREETGAN_OLD_MATH2(pow)

extern "C" {
double __wrap_exp(double x) { return streetgan_old_exp(x); }
double __wrap_exp2(double x) { return streetgan_old_exp2(x); }
double __wrap_log(double x) { return streetgan_old_log(x); }
double __wrap_log2(double x) { return streetgan_old_log2(x); }
double __wrap_pow(double x, double y) { return streetgan_old_pow(x, y); }
}
