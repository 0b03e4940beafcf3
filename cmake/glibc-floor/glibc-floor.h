// Forced into every file of a build with STREETGAN_GLIBC_FLOOR (cmake/GlibcFloor.cmake; the GPU
// bundle for older systems, packaging/gpu-bundle-floor.sh). GCC 10's libstdc++ was configured on
// glibc 2.31 to wait on a condition variable, mutex or rwlock with pthread_*_clock* (GLIBC_2.30):
// with these undefined its headers fall back to the timed waits every glibc has, converting a
// steady-clock deadline to the system clock as libstdc++ did before GCC 10. Preprocessor only, so
// the precompiled header stays usable.
#include <bits/c++config.h>
#undef _GLIBCXX_USE_PTHREAD_COND_CLOCKWAIT
#undef _GLIBCXX_USE_PTHREAD_MUTEX_CLOCKLOCK
#undef _GLIBCXX_USE_PTHREAD_RWLOCK_CLOCKLOCK
