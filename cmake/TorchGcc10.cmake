# torch 2.14+ with GCC 10 (Debian 11's compiler, which builds the GPU bundle's glibc 2.28 floor):
# two of torch's headers (ATen/ATen.h, torch/all.h) refuse any __cplusplus below 202002, while GCC 10
# says 201709 under -std=c++20 (its C++20 was still marked experimental). Everything else in torch's
# headers tests the features themselves (__cpp_concepts, __cpp_lib_*), and GCC 10 has what they use.
# So these two headers are copied with the guard at 201709 into a folder searched before torch's.
# Proven by the bundle built this way training a run against that torch (packaging/release-check.sh
# --only bundles); any other compiler below C++20 still meets torch's own error.
set(_overlay "${CMAKE_BINARY_DIR}/torch-gcc10-include")
foreach(header ATen/ATen.h torch/all.h)
  find_file(_source ${header} PATHS ${TORCH_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
  if(NOT _source)
    message(FATAL_ERROR "torch ${Torch_VERSION}: ${header} not found in ${TORCH_INCLUDE_DIRS}")
  endif()
  file(READ "${_source}" _text)
  string(FIND "${_text}" "__cplusplus < 202002L" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "torch ${Torch_VERSION}: ${_source} has no C++20 guard where cmake/TorchGcc10.cmake expects one: build with GCC 11 or newer")
  endif()
  string(REPLACE "__cplusplus < 202002L" "__cplusplus < 201709L" _text "${_text}")
  # Written only when it changes, so that a re-configure does not rebuild the precompiled header.
  file(WRITE "${_overlay}/${header}.new" "${_text}")
  file(COPY_FILE "${_overlay}/${header}.new" "${_overlay}/${header}" ONLY_IF_DIFFERENT)
  unset(_source)
endforeach()
include_directories(BEFORE "${_overlay}")
message(STATUS "GCC ${CMAKE_CXX_COMPILER_VERSION} with torch ${Torch_VERSION}: its C++20 guard taken at GCC 10's 201709 (${_overlay})")
