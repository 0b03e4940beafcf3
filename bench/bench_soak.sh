#!/usr/bin/env bash
# A week on screen in minutes (issue 48 item 3): the desktop app, offscreen, follows a run whose
# events are replayed at high speed (bench/soak_replay.py: metrics every step, a sample grid every
# 50 steps, a checkpoint every 2,000, system events), and the app's and its children's RSS and CPU
# are sampled once a second against the events written. Prints RSS at the start, after the flood
# and at the end, the app's CPU at 100 events/s before and after, and writes the samples as JSON
# and RSS against events as a PNG plot in bench/results/soak-<date>-<time>.{json,png}.
# A seed run (8 real tiny-32 steps) gives run.json, the event templates, a sample grid and a
# checkpoint. Not a test: nothing here asserts a figure.
# Environment:
#   BENCH_EVENTS            events of the flood phase, in all (default 1000000; the issue's soak: 10000000)
#   BENCH_RATE              events/s of the steady phases (default 100)
#   BENCH_STEADY_S          seconds of each steady phase (default 60)
#   BENCH_SAMPLE_EVERY      steps between sample grids (default 50)
#   BENCH_CHECKPOINT_EVERY  steps between checkpoints (default 2000)
#   BENCH_APP_SHARE         0..1: the app runs only that share of each 100 ms (SIGSTOP/SIGCONT), as
#                           on a machine busy with other work (default 1: not throttled)
#   BENCH_XVFB              1: the app on a virtual X server (xvfb-run), its window painted as on a
#                           desktop; default: Qt's offscreen platform
#   BENCH_SCREENSHOT        FILE.png: at the end, a second app opened on the whole run grabs its
#                           window after BENCH_SCREENSHOT_DELAY_MS (default 15000)
#   BENCH_AT_END            a shell command run before the app is closed, {pid} standing for its
#                           pid (a look inside: gdb's malloc_info, a heap profiler's dump)
#   BENCH_DURING_BEFORE     a shell command started with the steady phase before the flood, {pid}
#                           standing for the app's pid (a profile of the app following a fresh run:
#                           "perf record --call-graph dwarf -p {pid} -o FILE -- sleep 30")
#   BENCH_DURING_AFTER      the same, started with the steady phase after the flood
#   STREETGAN_APP           the app (default build/release/app/streetgan)
#   BENCH_RESULTS_DIR       where the results go (default bench/results)
set -euo pipefail
export LC_ALL=C
me=bench_soak.sh
source "$(dirname "$0")/bench_common.sh"
app=${STREETGAN_APP:-$root/build/release/app/streetgan}
results=${BENCH_RESULTS_DIR:-$here/results}
[[ -x $app ]] || die "$app is missing: cmake --build --preset release"
[[ -x $trainer ]] || die "$trainer is missing: cmake --build --preset release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$trainer" train --run-dir "$work/seed" --preset tiny-32 --data synthetic --steps 8 --batch 8 --log-every 1 --sample-every 8 \
    --checkpoint-every 8 --metrics swd --metric-swd-samples 16 >/dev/null 2>"$work/seed.log" || die "the seed run failed: $(tail -1 "$work/seed.log")"
mkdir -p "$results"
"$py" "$here/soak_replay.py" "$app" "$work/seed" "$work" "$results/soak-$(date +%Y%m%d-%H%M%S)"
