# STREETGAN_VENDORED: the libraries of the lean trainer from the source archive's third_party/
# (packaging/vendor-sources.sh) instead of the system's -dev packages, so that a host build needs
# only a C++17 compiler and the host's torch (packaging/build-trainer.sh turns it on when the
# folder is there). Defines the same targets and variables as the system path of the top-level
# CMakeLists.txt: ZLIB::ZLIB, LIBDEFLATE_INCLUDE_DIR / LIBDEFLATE_LIBRARY, nlohmann_json::nlohmann_json,
# CLI11::CLI11, GIF::GIF, PkgConfig::IMAGEQUANT, PkgConfig::HTTPLIB, EXPAT::EXPAT and, where the host
# has a libcurl.so.4, PkgConfig::CURL (curl's headers from third_party, the host's library: S3).
# The C libraries are static and position-independent, compiled with the project's flags.
set(tp ${STREETGAN_VENDORED_DIR})
if(NOT EXISTS ${tp}/README.md)
  message(FATAL_ERROR "STREETGAN_VENDORED: ${tp} has no vendored sources: make it with packaging/vendor-sources.sh ${tp} "
                      "(the source archive the app uploads carries it), or build with the system's packages (-DSTREETGAN_VENDORED=OFF)")
endif()
if(STREETGAN_WITH_PHOTOS OR STREETGAN_WITH_MP4 OR STREETGAN_WITH_SSH OR STREETGAN_BUILD_GUI OR STREETGAN_BUILD_TESTS)
  message(FATAL_ERROR "STREETGAN_VENDORED builds the lean trainer only: add -DSTREETGAN_WITH_PHOTOS=OFF -DSTREETGAN_WITH_MP4=OFF "
                      "-DSTREETGAN_WITH_SSH=OFF -DSTREETGAN_BUILD_GUI=OFF -DSTREETGAN_BUILD_TESTS=OFF (packaging/build-trainer.sh does)")
endif()
enable_language(C)
# No pkg-config in a vendored build, and no libwebpmux: WebP export is left out (as in the GPU bundle).
set(STREETGAN_WITH_WEBP OFF CACHE BOOL "Animated WebP export (libwebpmux), where it is found" FORCE)

# streetgan_vendored_library(NAME DIR SOURCES...): a static library of third_party/DIR's SOURCES,
# its folder public (SYSTEM: their headers are not ours to warn about).
function(streetgan_vendored_library name dir)
  list(TRANSFORM ARGN PREPEND ${tp}/${dir}/)
  add_library(${name} STATIC ${ARGN})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON C_STANDARD 99 C_EXTENSIONS ON)
  target_include_directories(${name} SYSTEM PUBLIC ${tp}/${dir})
  target_compile_options(${name} PRIVATE -w)
endfunction()

streetgan_vendored_library(streetgan_zlib zlib adler32.c compress.c crc32.c deflate.c gzclose.c gzlib.c gzread.c gzwrite.c
  infback.c inffast.c inflate.c inftrees.c trees.c uncompr.c zutil.c)
target_compile_definitions(streetgan_zlib PRIVATE HAVE_UNISTD_H HAVE_STDARG_H _LARGEFILE64_SOURCE=1)
add_library(ZLIB::ZLIB ALIAS streetgan_zlib)

file(GLOB deflate_sources RELATIVE ${tp}/libdeflate ${tp}/libdeflate/lib/*.c ${tp}/libdeflate/lib/x86/*.c)
streetgan_vendored_library(streetgan_deflate libdeflate ${deflate_sources})
set(LIBDEFLATE_INCLUDE_DIR ${tp}/libdeflate)
set(LIBDEFLATE_LIBRARY streetgan_deflate)

streetgan_vendored_library(streetgan_gif giflib dgif_lib.c egif_lib.c gif_err.c gif_font.c gif_hash.c gifalloc.c
  openbsd-reallocarray.c quantize.c)
add_library(GIF::GIF ALIAS streetgan_gif)

# libimagequant 2.17 as its own CMake file builds it (SSE on x86_64), without OpenMP: the GIF export
# quantises one frame at a time on the thread that writes it.
streetgan_vendored_library(streetgan_imagequant libimagequant libimagequant.c blur.c kmeans.c mediancut.c mempool.c nearest.c pam.c)
target_compile_definitions(streetgan_imagequant PRIVATE USE_SSE=1)
target_link_libraries(streetgan_imagequant PRIVATE m)
add_library(PkgConfig::IMAGEQUANT ALIAS streetgan_imagequant)

# expat with the settings of Debian's build (XML_DTD, XML_NS, context bytes), entropy from
# getrandom (glibc 2.25+).
file(WRITE ${CMAKE_BINARY_DIR}/vendored/expat/expat_config.h
  "#define BYTEORDER 1234\n#define HAVE_GETRANDOM 1\n#define HAVE_SYSCALL_GETRANDOM 1\n#define HAVE_MMAP 1\n"
  "#define HAVE_STDINT_H 1\n#define HAVE_STDLIB_H 1\n#define HAVE_STRING_H 1\n#define HAVE_UNISTD_H 1\n#define STDC_HEADERS 1\n"
  "#define XML_CONTEXT_BYTES 1024\n#define XML_DTD 1\n#define XML_NS 1\n#define XML_DEV_URANDOM 1\n#define PACKAGE \"expat\"\n")
streetgan_vendored_library(streetgan_expat expat lib/xmlparse.c lib/xmlrole.c lib/xmltok.c)
target_include_directories(streetgan_expat SYSTEM PUBLIC ${tp}/expat/lib PRIVATE ${CMAKE_BINARY_DIR}/vendored/expat)
target_compile_definitions(streetgan_expat PRIVATE HAVE_EXPAT_CONFIG_H)
add_library(EXPAT::EXPAT ALIAS streetgan_expat)

# Header-only.
foreach(name nlohmann_json::nlohmann_json CLI11::CLI11 PkgConfig::HTTPLIB)
  add_library(${name} INTERFACE IMPORTED)
  set_target_properties(${name} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${tp}/include)
endforeach()

# S3: curl's headers from third_party, the host's libcurl.so.4 (its ABI has been stable since 2006;
# an option newer than the host's library is refused at run time: s3/CurlSession.cpp).
find_library(STREETGAN_HOST_LIBCURL NAMES curl libcurl.so.4)
# (Forced either way: a host that gets libcurl later builds S3 in on the next configure.)
if(STREETGAN_HOST_LIBCURL)
  set(STREETGAN_WITH_S3 ON CACHE BOOL "" FORCE)
  add_library(PkgConfig::CURL INTERFACE IMPORTED)
  set_target_properties(PkgConfig::CURL PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${tp}/include INTERFACE_LINK_LIBRARIES ${STREETGAN_HOST_LIBCURL})
  message(STATUS "Vendored libraries from ${tp}; S3 through ${STREETGAN_HOST_LIBCURL}")
else()
  set(STREETGAN_WITH_S3 OFF CACHE BOOL "" FORCE)
  message(STATUS "Vendored libraries from ${tp}; S3 left out: no libcurl.so.4 on this system (install libcurl: dnf install libcurl, apt install libcurl4)")
endif()
