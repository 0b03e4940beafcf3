#!/usr/bin/env bash
# Distributed training on the CPU: 2 ranks x 1 thread (launch --nproc 2, Gloo on 127.0.0.1)
# against 1 rank x 2 threads (plain train), the same global batch and the same steps, on the
# real training loop (synthetic streets data, loader, events). Figures, never pass/fail.
#
# Throughput is read from each run's events.jsonl: images between the first and the last metrics
# event divided by the wall time between them (start-up, rendezvous and the final checkpoint are
# left out); both sides are alternated BENCH_REPEATS times and the median is reported.
# Prints a table and writes the same as JSON to bench/results/dist-<date>-<time>.json.
#
# Environment (all optional):
#   STREETGAN_TRAINER   trainer binary (default: build/release/app/streetgan-trainer)
#   BENCH_PRESETS       presets, space separated (default: "tiny-32 naive-64")
#   BENCH_BATCH         global batch (default 64: 2 x 32 per rank against 64 in one process)
#   BENCH_<P>_STEPS     steps per run, <P> the preset in capitals without '-' (TINY32 60, NAIVE64 12)
#   BENCH_REPEATS       runs per side and preset (default 3)
#   BENCH_RESULTS_DIR   where the JSON goes (default: bench/results)
set -euo pipefail
export LC_ALL=C
me=bench_dist.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"

[[ -x $trainer ]] || die "no trainer at $trainer: build first (cmake --build --preset release)"
presets=${BENCH_PRESETS:-"tiny-32 naive-64"}
batch=${BENCH_BATCH:-64}
repeats=${BENCH_REPEATS:-3}
(( batch % 2 == 0 )) || die "BENCH_BATCH=$batch must be even (two ranks share it)"
results=${BENCH_RESULTS_DIR:-$root/bench/results}
mkdir -p "$results"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# rate RUN_DIR GLOBAL_BATCH: steady-state images/s from the metrics events
rate() {
    "$py" - "$1/events.jsonl" "$2" <<'PY'
import json, sys
m = [e for e in map(json.loads, open(sys.argv[1])) if e.get("kind") == "metrics"]
if len(m) < 2: sys.exit("fewer than two metrics events in " + sys.argv[1])
print("%.2f" % ((m[-1]["step"] - m[0]["step"]) * int(sys.argv[2]) / (m[-1]["t"] - m[0]["t"])))
PY
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

json_rows=()
printf '%-9s %6s %6s %16s %16s %8s\n' preset batch steps "1x2thr img/s" "2x1thr img/s" "2r/1r"
for preset in $presets; do
    key=$(tr -d '-' <<<"${preset^^}")
    steps_var=BENCH_${key}_STEPS
    default_steps=60
    [[ $preset == naive-64 ]] && default_steps=12
    steps=${!steps_var:-$default_steps}
    log_every=$(( steps / 6 > 0 ? steps / 6 : 1 ))
    common=(--preset "$preset" --data synthetic --synthetic-images 4096 --steps "$steps" --log-every "$log_every"
            --sample-every 0 --checkpoint-every 0 --loader-threads 1 --seed 1)
    one=() two=()
    for ((r = 0; r < repeats; r++)); do
        for side in $( ((r % 2 == 0)) && echo "one two" || echo "two one"); do
            dir=$work/$preset-$side-$r
            if [[ $side == one ]]; then
                "$trainer" train --run-dir "$dir" "${common[@]}" --batch "$batch" --threads 2 >/dev/null 2>"$dir.err" ||
                    die "1-rank run failed: $(tail -1 "$dir.err")"
                one+=("$(rate "$dir" "$batch")")
            else
                "$trainer" launch --nproc 2 -- train --run-dir "$dir" "${common[@]}" --batch $((batch / 2)) --threads 1 >/dev/null 2>"$dir.err" ||
                    die "2-rank run failed: $(tail -1 "$dir.err")"
                two+=("$(rate "$dir" "$batch")")
            fi
        done
    done
    m1=$(median "${one[@]}")
    m2=$(median "${two[@]}")
    ratio=$(awk -v a="$m2" -v b="$m1" 'BEGIN {printf "%.2f", a / b}')
    printf '%-9s %6s %6s %16s %16s %8s\n' "$preset" "$batch" "$steps" "$m1" "$m2" "$ratio"
    json_rows+=("{\"preset\":\"$preset\",\"global_batch\":$batch,\"steps\":$steps,\"one_rank_two_threads\":$m1,\"two_ranks_one_thread\":$m2,\"ratio\":$ratio,\"runs\":{\"one\":[$(IFS=,; echo "${one[*]}")],\"two\":[$(IFS=,; echo "${two[*]}")]}}")
done
out=$results/dist-$(date +%Y%m%d-%H%M%S).json
(IFS=,; echo "{\"host\":\"$(hostname)\",\"cores\":$(nproc),\"results\":[${json_rows[*]}]}") >"$out"
echo "wrote $out"
