#!/bin/sh
# Opening a TensorBoard run of another trainer in the desktop app, side by side with TensorBoard's
# own EventAccumulator on the same event file: 1,000,000 scalar records (the reference project's
# five tags a step). Ours: open -> first plot, full load with the plots drawn, peak RSS (the
# bench_dashboard process, Qt included); TensorBoard's: Reload() of every scalar and its peak RSS.
# Prints the JSON lines and the ratios, and writes them to bench/results/tensorboard-<date>.json.
# Not a test: it asserts nothing. Makes build/tb-venv (pip's tensorboard) on first use.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/../build/release}
bench=$build/ui/bench_dashboard
records=${BENCH_RECORDS:-1000000}
venv=${BENCH_TB_VENV:-$build/tb-venv}
work=${BENCH_WORK:-$(mktemp -d /tmp/streetgan-bench-tensorboard.XXXXXX)}
[ -x "$bench" ] || { echo "bench_dashboard not built: cmake --build --preset release --target bench_dashboard" >&2; exit 1; }
"$here/../tests/python/tb-env.sh" "$venv"
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
mkdir -p "$here/results"
out=$here/results/tensorboard-$(date +%Y%m%d-%H%M%S).json
: > "$out"
# The file is written once (by bench_dashboard), then both read it three times, alternating.
"$bench" open --tensorboard --dir "$work/run" --events "$records" >/dev/null 2>&1
for i in 1 2 3; do
  "$bench" open --tensorboard --dir "$work/run" --events "$records" 2>/dev/null | grep '^{' | tee -a "$out"
  "$venv/bin/python" "$here/tensorboard_reference.py" "$work/run" | tee -a "$out"
done
python3 - "$out" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ours = [l for l in lines if l.get("format") == "tensorboard"]
ref = [l for l in lines if l.get("reader") == "EventAccumulator"]
o_load = statistics.median(l["full_load_s"] for l in ours)
o_first = statistics.median(l["first_plot_s"] for l in ours)
o_rss = statistics.median(l["peak_rss_mb"] for l in ours)
r_load = statistics.median(l["load_s"] for l in ref)
r_rss = statistics.median(l["peak_rss_mb"] for l in ref)
summary = {"records": ref[0]["records"], "ours_first_plot_s": o_first, "ours_full_load_s": o_load, "ours_peak_rss_mb": o_rss,
           "eventaccumulator_load_s": r_load, "eventaccumulator_peak_rss_mb": r_rss,
           "load_speedup": round(r_load / o_load, 2), "rss_ratio": round(o_rss / r_rss, 2)}
print(json.dumps(summary))
open(sys.argv[1], "a").write(json.dumps(summary) + "\n")
PY
[ -n "${BENCH_WORK:-}" ] || rm -rf "$work"
echo "# written to $out"
