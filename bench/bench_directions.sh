#!/usr/bin/env bash
# Named directions (issue 44 items 2 and 3): fits directions on the synthetic streets' own labels
# with `streetgan-trainer directions` (the demo naive-64 by default: trained on those streets), then
# measures with bench_directions (bench/bench_directions.cpp) how far moving along each one
# changes the generated scenes' brightness and, through measuring classifiers trained on scenes of
# another data seed, the probability of each scene parameter (night, snow, urban, fog, camera
# height, horizon, vanishing point), in standard deviations of each measure across random scenes.
# The evidence asked for: "night" should move brightness / P(night) more than anything else.
# A benchmark: it never fails on a value, only when a run fails. Writes
# bench/results/directions-<date>-<time>.md (the trainer's summary, the table, the commands) and
# one PNG strip per direction beside it (rows: seeds 20, 32, 5, 40; columns: amount -3..3).
#
# Environment (optional): BENCH_DIRECTIONS_CHECKPOINT (default resources/demo/naive-64-synthetic.pt),
# BENCH_DIRECTIONS_LABELS (night,snow,layout=urban,camera_height,horizon_y), BENCH_DIRECTIONS_SAMPLES
# (10000), BENCH_DIRECTIONS_IMAGES (3000 labelled scenes), BENCH_DIRECTIONS_THREADS (2),
# BENCH_DIRECTIONS_AMOUNT (2: from -2 to +2), BENCH_DIRECTIONS_ORTHOGONAL (e.g. night: the other
# directions are made orthogonal to it, --orthogonal-to), BENCH_DIRECTIONS_BIN (bench_directions),
# STREETGAN_TRAINER, BENCH_RESULTS_DIR.
set -euo pipefail
export LC_ALL=C
me=bench_directions.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

ck=${BENCH_DIRECTIONS_CHECKPOINT:-$root/resources/demo/naive-64-synthetic.pt}
labels=${BENCH_DIRECTIONS_LABELS:-night,snow,layout=urban,camera_height,horizon_y}
samples=${BENCH_DIRECTIONS_SAMPLES:-10000}
images=${BENCH_DIRECTIONS_IMAGES:-3000}
threads=${BENCH_DIRECTIONS_THREADS:-2}
amount=${BENCH_DIRECTIONS_AMOUNT:-2}
orthogonal=${BENCH_DIRECTIONS_ORTHOGONAL:-}
bin=${BENCH_DIRECTIONS_BIN:-$root/build/release/core/ml/bench_directions}
[[ -f $ck ]] || die "checkpoint '$ck' does not exist"
[[ -x $trainer ]] || die "no trainer at $trainer: build it first (cmake --build --preset release)"
[[ -x $bin ]] || die "no bench_directions at $bin: build it first (cmake --build --preset release --target bench_directions)"
results=${BENCH_RESULTS_DIR:-$root/bench/results}
mkdir -p "$results"
stamp=$(date -u +%Y%m%d-%H%M%S)
md=$results/directions-$stamp.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fit=("$trainer" directions --checkpoint "$ck" --data synthetic --labels "$labels" --samples "$samples" --images "$images"
    --threads "$threads" --out "$results/directions-$stamp.json")
[[ -z $orthogonal ]] || fit+=(--orthogonal-to "$orthogonal")
echo "$me: ${fit[*]}" >&2
t0=$(date +%s.%N)
"${fit[@]}" >"$work/fit.txt" 2>"$work/fit.err" || { cat "$work/fit.err" >&2; die "directions failed"; }
t1=$(date +%s.%N)
measure=("$bin" "$ck" "$results/directions-$stamp.json" "$results/directions-$stamp-" "$amount")
echo "$me: ${measure[*]}" >&2
OMP_NUM_THREADS=$threads "${measure[@]}" >"$work/measure.md" || die "bench_directions failed"
t2=$(date +%s.%N)

{
    echo "# Named directions: evidence ($(date -u +%Y-%m-%d), $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo
    echo "Checkpoint \`${ck#"$root"/}\`, labels \`$labels\`, $samples samples, $images labelled scenes, $threads threads on $(nproc) cores."
    echo "Fitting took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, measuring $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }') s."
    echo
    echo "## The fit (\`streetgan-trainer directions\`)"
    echo
    echo '```'
    cat "$work/fit.txt"
    echo '```'
    echo
    echo "## Effects"
    echo
    cat "$work/measure.md"
    echo
    echo "Strips: \`directions-$stamp-<name>.png\` (rows: seeds 20, 32, 5, 40; columns: amount -3 .. +3)."
    echo
    echo "## Commands"
    echo
    echo '```'
    echo "${fit[*]}"
    echo "${measure[*]}"
    echo '```'
} >"$md"
cat "$work/measure.md"
echo "$me: wrote $md" >&2
