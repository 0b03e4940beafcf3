#!/usr/bin/env bash
# Installs what is needed, builds everything once (Ninja, release preset) and runs the whole test
# suite with CTest; then builds the trainer against pip's torch 2.11 with CUDA (the `cuda` preset:
# compiled and linked here, where no GPU runs it) and runs the LibTorch suites on its CPU path.
# This is what .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
# ccache (installed above) makes a rebuild of the same sources, e.g. CI after a session, cheap.
if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
cmake --preset release
cmake --build --preset release
ctest --preset release
packaging/fetch-torch.sh build/cuda/_deps
cmake --preset cuda
cmake --build --preset cuda
ctest --preset cuda
