#!/usr/bin/env bash
# G_ema's decay rule at equal steps (issue 43 item 5): the SWD over training of G (no G_ema) and of
# G_ema under each decay rule, the per-step `--ema D` against the half-life in images `--ema-kimg K`
# (StyleGAN's ema_kimg). A benchmark: it never fails on a value, only when a run fails.
#
# Every setting trains the same preset with the same seed, batch, steps and data, one run after the
# other (never in parallel), with SWD (`--metrics swd`) at every checkpoint: of G_ema where the run
# has one, else of G. G itself is the same in every run (G_ema draws no random numbers and never
# feeds back into training; GeneratorAverage.h), so the run with `--ema 0` is G's curve for all of
# them; the bench checks that claim on the final checkpoints: `eval --metric swd --generator raw` of
# each G_ema run's last checkpoint must give the G run's figure (the "G check" lines). A 1-step run
# fills the SWD real-descriptor cache first.
# The default settings (each NAME=FLAGS; --setting replaces them all):
#   g            --ema 0             G alone (the reference)
#   ema-0.999    --ema 0.999         the per-step decay, the default before issue 43
#   kimg-10      --ema-kimg 10       StyleGAN's half-life, 10,000 images
#   kimg-20      --ema-kimg 20       StyleGAN2-ADA's "auto" at batch 64 (batch x 10 / 32 kimg)
# Then bench/quality_report.py writes bench/results/ema-<date>-<time>.{json,md,png} (the curves, the
# table: SWD per checkpoint, final, mean of the last third, best) and this script appends the G
# check and the exact commands to the .md. The runs stay in bench/results/ema-<date>-<time>-runs/
# (events.jsonl, run.json, logs; checkpoints deleted but the last).
#
# Usage: bench/bench_ema.sh [--preset P] [--steps N] [--checkpoint-every N] [--batch N] [--threads N]
#            [--seed N] [--swd-samples N] [--setting NAME=FLAGS]... [--device cpu]
#   defaults: tiny-32, 1500 steps, a checkpoint every 125, batch 64, 1 thread, seed 1, 512 SWD
#             samples, the four settings above, device cpu
#   --setting NAME=FLAGS  e.g. --setting "kimg-5=--ema-kimg 5" (repeat it; the first one given
#             replaces the defaults; give a `--ema 0` setting for the G check)
#
# Environment (optional): STREETGAN_TRAINER (default build/release/app/streetgan-trainer),
# STREETGAN_PYTHON (default /usr/bin/python3), BENCH_RESULTS_DIR (default bench/results),
# STREETGAN_FID_CACHE (the SWD real-descriptor cache, default ~/.cache/streetgan/fid).
set -euo pipefail
export LC_ALL=C
me=bench_ema.sh
args=("$@")
help=0
for a in "$@"; do [[ $a == -h || $a == --help ]] && help=1; done
if ((help)); then set -- --help; else set --; fi
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"

preset=tiny-32 steps=1500 ckpt=125 batch=64 threads=1 seed=1 swd=512 device=cpu
settings=("g=--ema 0" "ema-0.999=--ema 0.999" "kimg-10=--ema-kimg 10" "kimg-20=--ema-kimg 20")
given_settings=0
set -- "${args[@]}"
while (($#)); do
    (($# >= 2)) || die "$1 wants a value"
    case $1 in
        --preset) preset=$2 ;;
        --steps) steps=$2 ;;
        --checkpoint-every) ckpt=$2 ;;
        --batch) batch=$2 ;;
        --threads) threads=$2 ;;
        --seed) seed=$2 ;;
        --swd-samples) swd=$2 ;;
        --device) device=$2 ;;
        --setting)
            [[ $2 == ?*=* ]] || die "--setting wants NAME=FLAGS, e.g. \"kimg-10=--ema-kimg 10\", not '$2'"
            ((given_settings)) || settings=()
            given_settings=1
            settings+=("$2") ;;
        *) echo "$me: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift 2
done
for v in steps ckpt batch threads seed swd; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "--${v//_/-} wants a whole number, not '${!v}'"
done
((ckpt > 0 && ckpt <= steps)) || die "--checkpoint-every must be between 1 and --steps ($steps)"
[[ -x $trainer ]] || die "no trainer at $trainer: build first (cmake --build --preset release) or set STREETGAN_TRAINER"

results=${BENCH_RESULTS_DIR:-$root/bench/results}
stamp=$(date +%Y%m%d-%H%M%S)
runs=$results/ema-$stamp-runs
mkdir -p "$runs"
cache=${STREETGAN_FID_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan/fid}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

common=(--preset "$preset" --seed "$seed" --threads "$threads" --batch "$batch" --device "$device"
        --data synthetic --sample-every 0 --metric-every-checkpoints 1 --metrics swd
        --metric-swd-samples "$swd" --metric-cache-dir "$cache")
echo "$me: $preset, $steps steps, checkpoint every $ckpt, batch $batch, $threads thread(s), seed $seed, $swd SWD samples" >&2
echo "$me: trainer $trainer; runs in $runs" >&2
started=$(date --iso-8601=seconds)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
"$trainer" train --run-dir "$work/prime" "${common[@]}" --steps 1 --checkpoint-every 1 >"$work/prime.log" 2>&1 ||
    die "priming run failed: $(tail -3 "$work/prime.log")"
index=() commands=() g_dir=""
for s in "${settings[@]}"; do
    name=${s%%=*}
    read -r -a flags <<<"${s#*=}"
    dir=$runs/$name
    cmd=("$trainer" train --run-dir "$dir" "${common[@]}" --steps "$steps" --checkpoint-every "$ckpt" "${flags[@]}")
    commands+=("${cmd[*]}")
    read -r busy0 total0 < <(cpu_ticks)
    times >"$work/times"; mine0=$(child_ticks "$work/times")
    t0=$(date +%s.%N)
    "${cmd[@]}" >"$dir.log" 2>&1 || die "$name run failed (log $dir.log): $(tail -3 "$dir.log")"
    t1=$(date +%s.%N)
    read -r busy1 total1 < <(cpu_ticks)
    times >"$work/times"; mine1=$(child_ticks "$work/times")
    read -r wall cpu others < <(awk -v t0="$t0" -v t1="$t1" -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) \
        -v m=$((mine1 - mine0)) -v hz="$clk_tck" \
        'BEGIN { o = t > 0 ? (b - m) / t : 0; printf "%.1f %.1f %.3f\n", t1 - t0, m / hz, o < 0 ? 0 : o }')
    # keep the last checkpoint only (the G check below reads it)
    last=$(ls "$dir/checkpoints"/*.pt | sort -V | tail -1)
    find "$dir/checkpoints" -name '*.pt' ! -path "$last" -delete
    final=$(grep '"kind":"metric"' "$dir/events.jsonl" | tail -1 | sed -n 's/.*"swd":\([0-9.eE+-]*\).*/\1/p')
    printf '%s: %-12s %6.0f s wall, %6.0f s CPU, others used %.0f%% of the CPU, last SWD %s (%s)\n' \
        "$me" "$name" "$wall" "$cpu" "$(awk -v o="$others" 'BEGIN {print 100 * o}')" "${final:-none}" "${s#*=}" >&2
    [[ " ${flags[*]} " == *" --ema 0 "* ]] && g_dir=$dir
    flagjson=$(printf '"%s",' "${flags[@]}")
    index+=("{\"dataset\":\"synthetic\",\"setting\":\"$name\",\"label\":\"$name\",\"run_dir\":\"$dir\",\"threads\":$threads,\"wall_s\":$wall,\"cpu_s\":$cpu,\"others_cpu_share\":$others,\"flags\":[${flagjson%,}]}")
done
(IFS=,; echo "[${index[*]}]") >"$runs/index.json"
meta="{\"host\":\"$(hostname)\",\"cores\":$(nproc),\"started\":\"$started\",\"finished\":\"$(date --iso-8601=seconds)\",\"load_start\":\"$load_start\",\"load_end\":\"$(cut -d' ' -f1-3 /proc/loadavg)\",\"trainer\":\"$trainer\",\"trainer_version\":\"$("$trainer" --version 2>/dev/null | head -1)\",\"runs_dir\":\"$runs\"}"
"$py" "$here/quality_report.py" --index "$runs/index.json" --out "$results/ema-$stamp" --meta "$meta" >/dev/null || die "the report failed"

# The G check: G is the same in every run, so the raw G of each run's last checkpoint scores as the G run's.
eval_swd() {
    OMP_NUM_THREADS=$threads "$trainer" eval --checkpoint "$1" --metric swd --swd-samples "$swd" --seed "$seed" --cache-dir "$cache" --generator "$2" --json 2>/dev/null |
        "$py" -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["swd"])' 2>/dev/null || echo "failed"
}
{
    echo
    echo "## G check and commands"
    echo
    echo "SWD of each run's last checkpoint by \`streetgan-trainer eval --metric swd --swd-samples $swd --seed $seed --generator raw|ema\`:" \
        "G (raw) is the same in every run (it must equal the \`--ema 0\` run's where there is one)."
    echo
    echo "| run | G (raw) | G_ema |"
    echo "|---|---|---|"
    for s in "${settings[@]}"; do
        name=${s%%=*}
        ck=$(ls "$runs/$name/checkpoints"/*.pt | sort -V | tail -1)
        if [[ $runs/$name == "$g_dir" ]]; then
            echo "| $name | $(eval_swd "$ck" raw) | - |"
        else
            echo "| $name | $(eval_swd "$ck" raw) | $(eval_swd "$ck" ema) |"
        fi
    done
    echo
    echo "Commands (one after the other; trainer $("$trainer" --version 2>/dev/null | head -1)):"
    echo
    echo '```'
    echo "${trainer} train --run-dir <tmp> ${common[*]} --steps 1 --checkpoint-every 1   # fills the SWD cache"
    printf '%s\n' "${commands[@]}"
    echo '```'
} >>"$results/ema-$stamp.md"
cat "$results/ema-$stamp.md"
echo "$me: wrote $results/ema-$stamp.{json,md,png}" >&2
