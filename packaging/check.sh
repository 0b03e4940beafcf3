#!/usr/bin/env bash
# Installs what is needed, builds everything once (Ninja, release preset) and runs the whole test
# suite with CTest; meanwhile builds the trainer against pip's torch 2.11 with CUDA (the `cuda`
# preset: compiled and linked here, where no GPU runs it), then runs the LibTorch suites on its CPU
# path.
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
# The cuda build shares no LibTorch object with the release build, and the release tests leave
# much of the CPU idle (they wait on sshd, child processes and files): it runs beside them at the
# lowest priority, two jobs, its log shown once it is done. The suite holds on a busy machine.
packaging/fetch-torch.sh build/cuda/_deps
cmake --preset cuda
nice -n 19 cmake --build --preset cuda -- -j 2 >build/cuda-build.log 2>&1 &
cuda_build=$!
tests=0
ctest --preset release || tests=$?
cuda=0
wait "$cuda_build" || cuda=$?
echo "== the cuda build (beside the release tests): build/cuda-build.log"
if [ "$cuda" -ne 0 ]; then cat build/cuda-build.log; else tail -n 5 build/cuda-build.log; fi
[ "$tests" -eq 0 ] || { echo "check.sh: release tests failed" >&2; exit "$tests"; }
[ "$cuda" -eq 0 ] || { echo "check.sh: the cuda build failed (its log is above)" >&2; exit "$cuda"; }
ctest --preset cuda
