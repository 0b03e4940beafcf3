#!/bin/bash
# The Runs table over many runs: trains one real tiny run (tiny-32, 10 steps), copies it into
# BENCH_RUNS folders (default 1000; bench/make_runs_table.py: run.json's lr/seed/batch varied,
# ~100 metrics lines each), then times `streetgan-trainer ls ROOT --table --json` (one process:
# every run read whole) and bench_runs_table's two RunRecordCache passes over the same folder (the
# first reads every events.jsonl whole; the second, with nothing new, only stats and lock checks:
# what the app's refresh costs). The files are in the page cache (just written): "cold" is the
# reader's, not the disk's. Prints one JSON line. Not a test: it asserts nothing.
# Environment: BENCH_RUNS, BENCH_METRICS_LINES (100), BENCH_WORK (a temporary folder, removed).
set -euo pipefail
me=bench_runs_table.sh
source "$(dirname "$0")/bench_common.sh"
n=${BENCH_RUNS:-1000}
lines=${BENCH_METRICS_LINES:-100}
reader=${BENCH_RUNS_TABLE:-$root/build/release/core/base/bench_runs_table}
[[ -x $trainer ]] || die "streetgan-trainer not built: cmake --build --preset release --target streetgan-trainer"
[[ -x $reader ]] || die "bench_runs_table not built: cmake --build --preset release --target bench_runs_table"
work=${BENCH_WORK:-$(mktemp -d /tmp/streetgan-bench-runs-table.XXXXXX)}
[[ -n ${BENCH_WORK:-} ]] || trap 'rm -rf "$work"' EXIT
"$trainer" train --preset tiny-32 --steps 10 --batch 8 --log-every 5 --checkpoint-every 10 --sample-every 10 --metrics swd \
    --metric-swd-samples 64 --run-dir "$work/template" >/dev/null 2>&1 || die "the template run failed"
"$py" "$here/make_runs_table.py" "$work/template" "$n" "$work/runs" "$lines"
start=$(date +%s%N)
"$trainer" ls "$work/runs" --table --json >"$work/table.json"
end=$(date +%s%N)
listed=$("$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$work/table.json")
[[ $listed -eq $n ]] || die "ls --table --json listed $listed runs, not $n"
passes=$("$reader" "$work/runs")
"$py" - "$passes" "$n" "$(( (end - start) / 1000000 ))" "$(stat -c %s "$work/table.json")" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
d.update(bench="runs_table", runs=int(sys.argv[2]), ls_table_json_ms=int(sys.argv[3]), ls_table_json_bytes=int(sys.argv[4]))
print(json.dumps(d))
PY
