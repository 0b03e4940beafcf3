#!/usr/bin/env bash
# Loader benchmark, side by side in one run: augmented 64x64 batches from a folder of 640x480
# JPEG photos (MSLS-like, made from the synthetic street scenes) through streetgan-trainer's
# loader, against the reference pipeline (torchvision ImageFolder + DataLoader with the same
# number of workers), plus the bare IMREAD_REDUCED_COLOR_4 decode ceiling on the same files.
# Figures, never pass/fail. Env: BENCH_IMAGES (2000), BENCH_SECONDS (8), BENCH_THREADS ("1 2").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trainer=${STREETGAN_TRAINER:-$root/build/release/app/streetgan-trainer}
[ -x "$trainer" ] || { echo "bench_loader: no trainer at $trainer: build first (cmake --build --preset release)" >&2; exit 1; }
/usr/bin/python3 -c "import torchvision" 2>/dev/null || { echo "bench_loader: Debian's python3-torchvision is missing: packaging/install-deps.sh --bench" >&2; exit 1; }
images=${BENCH_IMAGES:-2000}; seconds=${BENCH_SECONDS:-8}; threads=${BENCH_THREADS:-"1 2"}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$trainer" data synth --count "$images" --out "$work/photos" >/dev/null
cat "$work"/photos/synthetic/*.jpg >/dev/null  # page cache warm for every side
field() { /usr/bin/python3 -c "import json,sys; print('%.1f' % json.load(sys.stdin)['$1'])"; }
printf '%-8s %12s %12s %12s %10s %10s\n' threads "C++ img/s" "ceiling" "Python img/s" "C++/ceil" "C++/Py"
for t in $threads; do
  cpp=$("$trainer" bench loader --data "$work/photos" --size 64 --threads "$t" --seconds "$seconds" --json | field images_per_s)
  ceil=$("$trainer" bench loader --data "$work/photos" --size 64 --threads "$t" --seconds "$seconds" --decode-only --json | field images_per_s)
  py=$(/usr/bin/python3 "$root/bench/loader_reference.py" --data "$work/photos" --size 64 --threads "$t" --seconds "$seconds" --json | field images_per_s)
  /usr/bin/python3 -c "print('%-8s %12s %12s %12s %10.2f %10.2f' % ('$t', '$cpp', '$ceil', '$py', $cpp / $ceil, $cpp / $py))"
done
( cd "$work/photos" && /usr/bin/python3 -c "import shutil; shutil.make_archive('$work/batch', 'zip', root_dir='.')" )
"$trainer" data pack "$work/photos" --size 64 --out "$work/cache" >/dev/null
for t in $threads; do
  folder=$("$trainer" bench loader --data "$work/photos" --size 64 --threads "$t" --seconds "$seconds" --json | field images_per_s)
  zip=$("$trainer" bench loader --data "$work/batch.zip" --size 64 --threads "$t" --seconds "$seconds" --json | field images_per_s)
  cache=$("$trainer" bench loader --data "$work/cache" --size 64 --threads "$t" --seconds "$seconds" --json | field images_per_s)
  /usr/bin/python3 -c "print('threads %s: folder %s, zip %s (zip/folder %.2f), packed cache %s img/s (%.0f per thread)' % ('$t', '$folder', '$zip', $zip / $folder, '$cache', $cache / $t))"
done
echo "($images 640x480 JPEG photos, 64 px, reference augmentation; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg))"
