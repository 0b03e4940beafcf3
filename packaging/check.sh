#!/usr/bin/env bash
# Installs what is needed, builds everything once (Ninja, release preset) and runs the whole test
# suite with CTest; then builds the trainer against pip's torch 2.11 with CUDA (the `cuda` preset:
# compiled and linked here, where no GPU runs it) and runs the LibTorch suites on its CPU path.
# This is what .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
# ccache (installed above) makes a rebuild of the same sources cheap, in another clone too (paths
# below the repository are hashed relative to it); the sloppiness lets it cache the translation
# units that use the precompiled LibTorch header, which are most of the build time. NOHASHDIR: the
# build folder is not hashed, so the cuda build reuses the release build's core/base objects.
if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
fi
cmake --preset release
cmake --build --preset release
ctest --preset release
packaging/fetch-torch.sh build/cuda/_deps
cmake --preset cuda
cmake --build --preset cuda
ctest --preset cuda
