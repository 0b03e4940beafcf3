#!/usr/bin/env bash
# Installs what is needed, builds, and starts StreetGAN on its embedded default: the desktop app,
# whose first start preselects the built-in synthetic street scenes (one click starts a tiny CPU
# run with live curves) and offers the embedded demo model in the latent explorer (--explore
# starts there). Without a display (no DISPLAY / WAYLAND_DISPLAY, e.g. over plain SSH) it
# starts that demo run headless instead, printing its progress, into RUN_DIR.
# Usage: packaging/start.sh [streetgan flags, e.g. --open-run DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target streetgan streetgan-trainer
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec build/release/app/streetgan "$@"
fi
run_dir=runs/demo-$(date +%Y%m%d-%H%M%S)
echo "streetgan: no display; training tiny-32 on synthetic streets into $run_dir instead (Ctrl-C stops after a checkpoint)"
exec build/release/app/streetgan-trainer train --run-dir "$run_dir" --preset tiny-32 --data synthetic \
  --batch 64 --steps 3000 --log-every 10 --sample-every 100 --checkpoint-every 500
