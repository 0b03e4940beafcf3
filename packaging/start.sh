#!/usr/bin/env bash
# Installs what is needed, builds, and starts StreetGAN on its embedded default: until the desktop
# app lands, a demo training run of tiny-32 on the built-in synthetic street scenes (CPU), whose
# progress prints live and whose run directory (samples/, checkpoints/, tb/) fills as it trains.
# Usage: packaging/start.sh [RUN_DIR] [extra streetgan-trainer train flags]
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target streetgan-trainer
run_dir=${1:-runs/demo-$(date +%Y%m%d-%H%M%S)}
shift || true
echo "streetgan: training tiny-32 on synthetic streets into $run_dir (Ctrl-C stops after a checkpoint)"
exec build/release/app/streetgan-trainer train --run-dir "$run_dir" --preset tiny-32 --data synthetic \
  --batch 64 --steps 3000 --log-every 10 --sample-every 100 --checkpoint-every 500 "$@"
