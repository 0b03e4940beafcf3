#!/usr/bin/env bash
# Installs what is needed, builds everything once (Ninja, release preset) and runs the whole test
# suite with CTest. This is what .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
