#!/bin/sh
# The desktop app's dashboard: open a run of 1,000,000 events (first plot, full load, replot
# times, memory) with and without smoothing, and the event-to-pixel latency of a live local run.
# Prints the JSON lines of bench_dashboard and writes them to bench/results/dashboard-<date>.json.
# Not a test: it asserts nothing; it fails only when a run fails.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/../build/release}
bench=$build/ui/bench_dashboard
trainer=$build/app/streetgan-trainer
events=${BENCH_EVENTS:-1000000}
seconds=${BENCH_SECONDS:-15}
work=${BENCH_WORK:-$(mktemp -d /tmp/streetgan-bench-dashboard.XXXXXX)}
[ -x "$bench" ] || { echo "bench_dashboard not built: cmake --build --preset release --target bench_dashboard" >&2; exit 1; }
[ -x "$trainer" ] || { echo "streetgan-trainer not built" >&2; exit 1; }
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
mkdir -p "$here/results"
out=$here/results/dashboard-$(date +%Y%m%d-%H%M%S).json
: > "$out"
run() { "$@" 2>/dev/null | grep '^{' | tee -a "$out"; }
echo "# open a run of $events events (written once into $work/big)"
run "$bench" open --dir "$work/big" --events "$events" --smoothing 0
run "$bench" open --dir "$work/big" --events "$events" --smoothing 0.6
echo "# event-to-pixel latency of a live tiny CPU run ($seconds s, an event every step)"
run "$bench" latency --trainer "$trainer" --dir "$work/live" --seconds "$seconds"
[ -n "${BENCH_WORK:-}" ] || rm -rf "$work"
echo "# written to $out"
