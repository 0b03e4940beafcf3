#!/usr/bin/env bash
# Our trainer built against LibTorch 2.11 (the `cuda` preset, its CPU path) against PyTorch 2.11
# eager and torch.compile on this machine's CPU, side by side in one run (bench_train.sh with a
# third side). Makes the venv with pip's torch 2.11.0 first (build/torch2-venv, kept).
# Environment: as bench_train.sh (BENCH_PRESETS, BENCH_THREADS default 2, BENCH_REPEATS, ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${BENCH_TORCH2_VENV:-$root/build/torch2-venv}
trainer=${STREETGAN_TRAINER:-$root/build/cuda/app/streetgan-trainer}
[[ -x $trainer ]] || { echo "bench_torch2.sh: no trainer at $trainer: packaging/fetch-torch.sh && cmake --preset cuda && cmake --build --preset cuda" >&2; exit 1; }
if ! "$venv/bin/python" -c 'import torch, sys; sys.exit(torch.__version__.split("+")[0] != "2.11.0")' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q torch==2.11.0 numpy || { echo "bench_torch2.sh: pip could not install torch==2.11.0 into $venv" >&2; exit 1; }
fi
export STREETGAN_TRAINER=$trainer STREETGAN_PYTHON=$venv/bin/python BENCH_COMPILE=1
export BENCH_THREADS=${BENCH_THREADS:-2}
exec "$root/bench/bench_train.sh"
