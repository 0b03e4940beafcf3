#!/usr/bin/env bash
# Renders docs/screenshots/*.png: the welcome page (first start), the dashboard with a live run,
# two runs compared, the checkpoint browser, the latent explorer, its export dialog, dark mode and
# a run of another trainer (the reference project's TensorBoard logs) with its Scalars tab and the
# img_list grids of its checkpoints, and the Runs table (two runs side by side, parallel coordinates),
# under Xvfb at 1280x800 (a laptop screen: a shot shows what such a user sees, cut-offs included).
# Usage: tools/screenshots.sh [BUILD_DIR]   (default build/release; builds what it needs there)
# Needs: xvfb-run (xvfb, xauth), the build's streetgan-trainer and screenshot_tour.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
out="$here/docs/screenshots"
command -v xvfb-run >/dev/null || { echo "screenshots.sh: xvfb-run is missing: packaging/install-deps.sh installs it (xvfb, xauth)" >&2; exit 1; }
ninja -C "$build" streetgan-trainer screenshot_tour >/dev/null
trainer="$build/app/streetgan-trainer"
tour="$build/ui/screenshot_tour"

# A fresh user: own HOME and XDG folders, so the welcome page is a first start and nothing of
# the developer's settings shows.
tmp="$(mktemp -d)"
trap '"$trainer" control "$tmp/home/.local/share/streetgan/runs/live-tiny-32" stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share" \
       XDG_CACHE_HOME="$tmp/home/.cache" XDG_RUNTIME_DIR="$tmp/runtime" STREETGAN_TRAINER="$trainer"
# The runs live in the app's default runs folder, so the sidebar lists them.
runs="$XDG_DATA_HOME/streetgan/runs"
mkdir -p "$runs" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# Two finished runs that differ in one thing (the learning rate), and a live one.
echo "screenshots.sh: training two small runs to compare (about a minute)" >&2
"$trainer" train --run-dir "$runs/lr-2e-4" --preset tiny-32 --steps 400 --batch 16 --seed 3 --lr 2e-4 \
  --log-every 5 --sample-every 100 --checkpoint-every 100 >/dev/null
"$trainer" train --run-dir "$runs/lr-1e-3" --preset tiny-32 --steps 400 --batch 16 --seed 3 --lr 1e-3 \
  --log-every 5 --sample-every 100 --checkpoint-every 100 >/dev/null
"$trainer" start --detach --run-dir "$runs/live-tiny-32" --preset tiny-32 --steps 200000 --batch 16 \
  --log-every 5 --sample-every 50 --checkpoint-every 200 >/dev/null

# A run of the reference project's own Python trainer (SummaryWriter logs into NAME/events).
"$here/tests/python/tb-env.sh" "$build/tb-venv"
"$build/tb-venv/bin/python" "$here/tools/screenshots/reference_style_run.py" "$runs/dcgan-msls-dl1/events"

mkdir -p "$out"
xvfb-run -a -s "-screen 0 1280x800x24" "$tour" --out "$out" --live "$runs/live-tiny-32" \
  --compare "$runs/lr-2e-4" --compare "$runs/lr-1e-3" --tensorboard "$runs/dcgan-msls-dl1"
echo "screenshots.sh: wrote $(ls "$out"/*.png | wc -l) screenshots to $out" >&2
