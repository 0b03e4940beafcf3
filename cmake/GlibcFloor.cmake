# STREETGAN_GLIBC_FLOOR=2.28: programs that need no GLIBC_ symbol version above 2.28 when built on
# a newer glibc (Debian 11's 2.31; packaging/gpu-bundle-floor.sh), for RHEL/Rocky 8 and Debian 10.
# Two things in our own code reach above 2.28 there: libstdc++'s clock waits (GLIBC_2.30; a forced
# header turns them off) and the math functions glibc 2.29 re-versioned (linked to their old version
# through --wrap). packaging/check-floor.sh proves the result on every file.
set(STREETGAN_GLIBC_FLOOR "" CACHE STRING "Oldest glibc the programs must start on (2.28), or empty for this system's")
if(STREETGAN_GLIBC_FLOOR STREQUAL "")
  return()
endif()
if(NOT STREETGAN_GLIBC_FLOOR STREQUAL "2.28")
  message(FATAL_ERROR "STREETGAN_GLIBC_FLOOR must be 2.28 or empty (got ${STREETGAN_GLIBC_FLOOR})")
endif()
add_compile_options("SHELL:-include ${CMAKE_CURRENT_LIST_DIR}/glibc-floor/glibc-floor.h")
add_library(streetgan_glibc_floor STATIC ${CMAKE_CURRENT_LIST_DIR}/glibc-floor/GlibcFloorMath.cpp)
set(streetgan_floor_wrapped exp exp2 log log2 pow)
list(TRANSFORM streetgan_floor_wrapped PREPEND "-Wl,--wrap=")
# ld.bfd: lld keeps the wrapped symbol's new version in the program's needs beside the old one.
add_link_options(${streetgan_floor_wrapped} -fuse-ld=bfd)
# Every program and library defined after this links the wrappers (the library itself does not).
link_libraries(streetgan_glibc_floor)
message(STATUS "glibc floor: ${STREETGAN_GLIBC_FLOOR} (clock waits off, ${streetgan_floor_wrapped})")
