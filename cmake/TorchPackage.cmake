# STREETGAN_TORCH_PACKAGE=<site-packages>/torch: LibTorch taken straight from a Python torch
# package, without torch's own CMake files. Those files, for a CUDA build of torch, call
# enable_language(CUDA) and so need the CUDA toolkit's nvcc, although nothing of ours is CUDA code:
# the trainer calls CUDA only through torch's libraries. A GPU box with pip's torch but no toolkit
# (most of them: pip's wheels bring the CUDA runtime and its headers) then builds with a C++
# compiler alone (packaging/build-trainer.sh chooses this where nvcc is missing).
# Defines what find_package(Torch) defines and what our CMake files use: the imported targets
# torch, torch_cpu, c10 (and torch_cuda, c10_cuda for a CUDA torch), TORCH_LIBRARIES,
# TORCH_INCLUDE_DIRS, TORCH_INSTALL_PREFIX, Torch_VERSION.
set(_pkg "${STREETGAN_TORCH_PACKAGE}")
if(NOT EXISTS "${_pkg}/lib/libtorch.so" OR NOT EXISTS "${_pkg}/include/torch/csrc/api/include/torch/torch.h")
  message(FATAL_ERROR "STREETGAN_TORCH_PACKAGE=${_pkg} is not a torch package with LibTorch (lib/libtorch.so and include/): pass the folder `python -c 'import torch, os; print(os.path.dirname(torch.__file__))'` prints")
endif()
set(TORCH_INSTALL_PREFIX "${_pkg}")
# The version as torch's CMake files give it (no local part such as +cu130).
file(STRINGS "${_pkg}/share/cmake/Torch/TorchConfigVersion.cmake" _line REGEX "set\\(PACKAGE_VERSION \"")
string(REGEX REPLACE ".*\"([0-9.]+).*" "\\1" Torch_VERSION "${_line}")
if(NOT Torch_VERSION)
  file(STRINGS "${_pkg}/version.py" _line REGEX "^__version__")
  string(REGEX REPLACE "^__version__ = '([0-9.]+).*" "\\1" Torch_VERSION "${_line}")
endif()
# The compiler flags torch requires of its users (the C++ ABI's macro up to 2.13; nothing from 2.14).
set(TORCH_CXX_FLAGS "")
file(STRINGS "${_pkg}/share/cmake/Torch/TorchConfig.cmake" _line REGEX "^ *set\\(TORCH_CXX_FLAGS \"")
if(_line)
  string(REGEX REPLACE ".*TORCH_CXX_FLAGS \"([^\"]*)\".*" "\\1" TORCH_CXX_FLAGS "${_line}")
endif()
set(TORCH_INCLUDE_DIRS "${_pkg}/include" "${_pkg}/include/torch/csrc/api/include")

function(streetgan_torch_library name)
  add_library(${name} SHARED IMPORTED)
  set_target_properties(${name} PROPERTIES IMPORTED_LOCATION "${_pkg}/lib/lib${name}.so" IMPORTED_SONAME "lib${name}.so")
endfunction()
foreach(lib c10 torch_cpu torch)
  streetgan_torch_library(${lib})
endforeach()
set_target_properties(torch_cpu PROPERTIES INTERFACE_LINK_LIBRARIES c10)
# The definitions torch's targets hand their users (USE_DISTRIBUTED, USE_C10D_GLOO, USE_C10D_NCCL...),
# as its exported targets file lists them.
file(READ "${_pkg}/share/cmake/Caffe2/Caffe2Targets.cmake" _targets)
function(streetgan_torch_definitions target out)
  string(REGEX MATCH "set_target_properties\\(${target} PROPERTIES[^)]*INTERFACE_COMPILE_DEFINITIONS \"([^\"]*)\"" _match "${_targets}")
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()
streetgan_torch_definitions(torch_cpu _defs)
if(EXISTS "${_pkg}/lib/libtorch_cuda.so")
  # The CUDA runtime's headers (c10/cuda includes cuda_runtime_api.h): pip's CUDA wheels keep them in
  # site-packages/nvidia/<part>/include (cu12: nvidia/cuda_runtime, cu13: nvidia/cu13); a toolkit
  # without nvcc, or a conda env, has them in its include folder.
  # The crt/ headers cuda_runtime.h includes come with nvcc's wheels, not the runtime's:
  # packaging/build-trainer.sh fetches them where missing and names their folders here.
  set(STREETGAN_CUDA_HEADER_DIRS "" CACHE STRING "More CUDA include folders (pip's nvidia-cuda-crt for crt/host_config.h), for STREETGAN_TORCH_PACKAGE")
  file(GLOB _wheel_includes LIST_DIRECTORIES true "${_pkg}/../nvidia/*/include")
  list(APPEND _wheel_includes ${STREETGAN_CUDA_HEADER_DIRS})
  set(_cuda_hints ${_wheel_includes} "$ENV{CUDA_HOME}/include" "$ENV{CUDA_PATH}/include" "${_pkg}/../../../../include" /usr/local/cuda/include)
  find_path(STREETGAN_CUDA_RUNTIME_INCLUDE_DIR cuda_runtime_api.h HINTS ${_cuda_hints} NO_DEFAULT_PATH)
  if(NOT STREETGAN_CUDA_RUNTIME_INCLUDE_DIR)
    message(FATAL_ERROR "torch at ${_pkg} is a CUDA build, but the CUDA runtime's headers (cuda_runtime_api.h) are neither in its site-packages/nvidia/*/include nor under CUDA_HOME: install pip's CUDA runtime wheel of torch's CUDA version (for CUDA 12: pip install nvidia-cuda-runtime-cu12) or set CUDA_HOME")
  endif()
  find_path(STREETGAN_CUDA_CRT_INCLUDE_DIR crt/host_config.h HINTS ${_cuda_hints} NO_DEFAULT_PATH)
  if(NOT STREETGAN_CUDA_CRT_INCLUDE_DIR)
    message(FATAL_ERROR "torch at ${_pkg} is a CUDA build, but the CUDA headers lack crt/host_config.h (it comes with nvcc's wheels): pip install --target DIR nvidia-cuda-crt==<CUDA 13 runtime version> (CUDA 12: nvidia-cuda-nvcc-cu12) and add -DSTREETGAN_CUDA_HEADER_DIRS=DIR/nvidia/<part>/include, or let packaging/build-trainer.sh do it")
  endif()
  foreach(lib c10_cuda torch_cuda)
    streetgan_torch_library(${lib})
  endforeach()
  set_target_properties(c10_cuda PROPERTIES INTERFACE_LINK_LIBRARIES c10)
  set_target_properties(torch_cuda PROPERTIES INTERFACE_LINK_LIBRARIES "c10_cuda;torch_cpu")
  # Every wheel's headers (the runtime's, cuBLAS's, NCCL's...): ATen's CUDA headers include several.
  list(APPEND TORCH_INCLUDE_DIRS ${_wheel_includes} "${STREETGAN_CUDA_RUNTIME_INCLUDE_DIR}" "${STREETGAN_CUDA_CRT_INCLUDE_DIR}")
  list(REMOVE_DUPLICATES TORCH_INCLUDE_DIRS)
  streetgan_torch_definitions(torch_cuda _cuda_defs)
  set_target_properties(torch_cuda PROPERTIES INTERFACE_COMPILE_DEFINITIONS "${_cuda_defs}")
  # As torch's own files do: libtorch_cuda is needed by the program even where no symbol of it is
  # referenced, so that torch registers its CUDA backend when the program starts.
  set_target_properties(torch PROPERTIES INTERFACE_LINK_LIBRARIES
    "torch_cpu;-Wl,--no-as-needed,\"${_pkg}/lib/libtorch_cuda.so\" -Wl,--as-needed;torch_cuda")
  set(TORCH_CUDA_LIBRARIES "${_pkg}/lib/libc10_cuda.so")
else()
  set_target_properties(torch PROPERTIES INTERFACE_LINK_LIBRARIES
    "-Wl,--no-as-needed,\"${_pkg}/lib/libtorch_cpu.so\" -Wl,--as-needed;torch_cpu")
endif()
set_target_properties(torch_cpu PROPERTIES INTERFACE_COMPILE_DEFINITIONS "${_defs}")
set_target_properties(torch PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${TORCH_INCLUDE_DIRS}")
if(TORCH_CXX_FLAGS)
  separate_arguments(_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  set_property(TARGET torch APPEND PROPERTY INTERFACE_COMPILE_OPTIONS ${_flags})
endif()
set(TORCH_LIBRARIES torch "${_pkg}/lib/libc10.so")
set(Torch_FOUND TRUE)
message(STATUS "LibTorch ${Torch_VERSION} from the torch package ${_pkg} (its CMake files not used: no nvcc needed)")
