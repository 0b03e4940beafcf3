#!/usr/bin/env bash
# Quality at equal compute (issue 27 item 4): the SWD over training of the reference settings
# against G_ema and against G_ema + DiffAugment, on the synthetic streets and on a real-photo
# fixture (bench/make_photo_fixture.py, made when missing). A benchmark: it never fails on a value,
# only when a run fails.
#
# For each data set (synthetic, photo) and each setting
#   reference            --ema 0     --diffaugment ""
#   G_ema                --ema 0.999 --diffaugment ""
#   G_ema + DiffAugment  --ema 0.999 --diffaugment color,translation,cutout
# it trains the same preset with the same seed, batch and steps, one run after the other (never in
# parallel: each run has the machine to itself), with SWD (`--metric-every-checkpoints 1 --metrics
# swd`) at every checkpoint. Before the three runs of a data set one 1-step run with the same
# flags fills the SWD real-descriptor cache and the folder's image verdicts, so the first setting
# does not pay for them. The photo runs use the fixture's images folder with --max-shift 0 (the
# crops are already random) and --crop-factor FIXTURE_SIZE / MODEL_SIZE (the whole crop).
# Then bench/quality_report.py writes bench/results/quality-<date>-<time>.{json,md,png}: all
# curves (step, wall seconds since start, SWD, SWD per level), the table (SWD at each checkpoint,
# final and best, img/s) and the plot (SWD against step, one panel per data set).
# The runs stay in bench/results/quality-<date>-<time>-runs/ (events.jsonl, run.json, the last
# sample grid; checkpoints are deleted unless --keep-checkpoints).
#
# Usage: bench/quality_compare.sh [--quick] [--preset P] [--steps N] [--checkpoint-every N]
#            [--batch N] [--threads N] [--seed N] [--swd-samples N] [--datasets "synthetic photo"]
#            [--photo-dir DIR] [--photo-size N] [--photo-count N] [--device cpu] [--docs]
#            [--keep-checkpoints]
#   defaults: naive-64, 3000 steps, a checkpoint every 500, the preset's batch, 2 threads, seed 1,
#             512 SWD samples (the trainer's default), both data sets, device cpu
#   --quick   tiny-32, 40 steps, a checkpoint every 10, batch 32, 1 thread, 64 SWD samples: a smoke test of
#             the whole pipeline in a few minutes (flags after --quick still override)
#   --docs    also copy the plot to docs/images/quality-compare.png
#   --photo-dir DIR  train on this folder of photos instead of the fixture (give --photo-size too)
#
# Environment (optional): STREETGAN_TRAINER (default build/release/app/streetgan-trainer),
# STREETGAN_PYTHON (default /usr/bin/python3), BENCH_RESULTS_DIR (default bench/results),
# STREETGAN_FID_CACHE (the SWD real-descriptor cache, default ~/.cache/streetgan/fid).
set -euo pipefail
export LC_ALL=C
me=quality_compare.sh
args=("$@")
help=0
for a in "$@"; do [[ $a == -h || $a == --help ]] && help=1; done
if ((help)); then set -- --help; else set --; fi
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"

preset=naive-64 steps=3000 ckpt=500 batch="" threads=2 seed=1 swd=512 datasets="synthetic photo"
photo_dir="" photo_size="" photo_count=2000 device=cpu docs=0 keep_ckpt=0
set -- "${args[@]}"
while (($#)); do
    case $1 in --quick | --docs | --keep-checkpoints) ;; *) (($# >= 2)) || die "$1 wants a value" ;; esac
    case $1 in
        --quick) preset=tiny-32 steps=40 ckpt=10 batch=32 threads=1 swd=64 ;;
        --preset) preset=$2; shift ;;
        --steps) steps=$2; shift ;;
        --checkpoint-every) ckpt=$2; shift ;;
        --batch) batch=$2; shift ;;
        --threads) threads=$2; shift ;;
        --seed) seed=$2; shift ;;
        --swd-samples) swd=$2; shift ;;
        --datasets) datasets=$2; shift ;;
        --photo-dir) photo_dir=$2; shift ;;
        --photo-size) photo_size=$2; shift ;;
        --photo-count) photo_count=$2; shift ;;
        --device) device=$2; shift ;;
        --docs) docs=1 ;;
        --keep-checkpoints) keep_ckpt=1 ;;
        *) echo "$me: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
for v in steps ckpt threads seed swd photo_count; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "--${v//_/-} wants a whole number, not '${!v}'"
done
[[ -z $batch || $batch =~ ^[0-9]+$ ]] || die "--batch wants a whole number, not '$batch'"
((ckpt > 0 && ckpt <= steps)) || die "--checkpoint-every must be between 1 and --steps ($steps)"
[[ -x $trainer ]] || die "no trainer at $trainer: build first (cmake --build --preset release) or set STREETGAN_TRAINER"
# The model's image size: the preset name's last number (tiny-32, naive-64, safe-128, msls-128).
model_size=${preset##*-}
[[ $model_size =~ ^[0-9]+$ ]] || die "cannot tell the image size of preset '$preset'"
[[ -n $photo_size ]] || photo_size=$((model_size < 64 ? 64 : model_size))
((photo_size % model_size == 0)) || die "--photo-size $photo_size must be a multiple of the model's $model_size px"

results=${BENCH_RESULTS_DIR:-$root/bench/results}
stamp=$(date +%Y%m%d-%H%M%S)
runs=$results/quality-$stamp-runs
mkdir -p "$runs"
cache=${STREETGAN_FID_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan/fid}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT


if [[ " $datasets " == *" photo "* && -z $photo_dir ]]; then
    fixture=${XDG_CACHE_HOME:-$HOME/.cache}/streetgan/photo-fixture-$photo_size-$photo_count-s1
    "$py" "$here/make_photo_fixture.py" --out "$fixture" --size "$photo_size" --count "$photo_count" --seed 1 >&2 ||
        die "making the photo fixture failed"
    photo_dir=$fixture/images
fi

common=(--preset "$preset" --seed "$seed" --threads "$threads"
        --device "$device" --sample-every 0 --metric-every-checkpoints 1 --metrics swd
        --metric-swd-samples "$swd" --metric-cache-dir "$cache")
[[ -n $batch ]] && common+=(--batch "$batch")
settings=(reference ema ema+diffaugment)
declare -A label=([reference]="reference" [ema]="G_ema" [ema+diffaugment]="G_ema + DiffAugment")

echo "$me: $preset, $steps steps, checkpoint every $ckpt, batch ${batch:-preset default}, $threads thread(s), seed $seed, $swd SWD samples" >&2
echo "$me: trainer $trainer; runs in $runs" >&2
started=$(date --iso-8601=seconds)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
index=()
for ds in $datasets; do
    case $ds in
        synthetic) data=(--data synthetic) ;;
        photo) [[ -d $photo_dir ]] || die "no photo folder $photo_dir"
               data=(--data "$photo_dir" --max-shift 0 --crop-factor "$(awk -v a="$photo_size" -v b="$model_size" 'BEGIN {print a / b}')") ;;
        *) die "unknown data set '$ds' (synthetic, photo)" ;;
    esac
    # Fill the SWD real-descriptor cache (and a folder's image verdicts) once, outside the timed runs.
    "$trainer" train --run-dir "$work/prime-$ds" "${common[@]}" "${data[@]}" --steps 1 --checkpoint-every 1 \
        >"$work/prime-$ds.log" 2>&1 || die "priming run on $ds failed: $(tail -3 "$work/prime-$ds.log")"
    for s in "${settings[@]}"; do
        case $s in
            reference) flags=(--ema 0 --diffaugment "") ;;
            ema) flags=(--ema 0.999 --diffaugment "") ;;
            ema+diffaugment) flags=(--ema 0.999 --diffaugment "color,translation,cutout") ;;
        esac
        dir=$runs/$ds-${s//+/-}
        read -r busy0 total0 < <(cpu_ticks)
        times >"$work/times"; mine0=$(child_ticks "$work/times")
        t0=$(date +%s.%N)
        "$trainer" train --run-dir "$dir" "${common[@]}" --steps "$steps" --checkpoint-every "$ckpt" "${data[@]}" "${flags[@]}" \
            >"$dir.log" 2>&1 ||
            die "$ds / $s run failed (log $dir.log): $(tail -3 "$dir.log")"
        t1=$(date +%s.%N)
        read -r busy1 total1 < <(cpu_ticks)
        times >"$work/times"; mine1=$(child_ticks "$work/times")
        read -r wall cpu others < <(awk -v t0="$t0" -v t1="$t1" -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) \
            -v m=$((mine1 - mine0)) -v hz="$clk_tck" \
            'BEGIN { o = t > 0 ? (b - m) / t : 0; printf "%.1f %.1f %.3f\n", t1 - t0, m / hz, o < 0 ? 0 : o }')
        ((keep_ckpt)) || rm -rf "$dir/checkpoints"
        final=$(grep '"kind":"metric"' "$dir/events.jsonl" | tail -1 | sed -n 's/.*"swd":\([0-9.eE+-]*\).*/\1/p')
        printf '%s: %-9s %-16s %6.0f s wall, %6.0f s CPU, others used %.0f%% of the CPU, last SWD %s\n' \
            "$me" "$ds" "$s" "$wall" "$cpu" "$(awk -v o="$others" 'BEGIN {print 100 * o}')" "${final:-none}" >&2
        flagjson=$(printf '"%s",' "${flags[@]}" "${data[@]}")
        index+=("{\"dataset\":\"$ds\",\"setting\":\"$s\",\"label\":\"${label[$s]}\",\"run_dir\":\"$dir\",\"threads\":$threads,\"wall_s\":$wall,\"cpu_s\":$cpu,\"others_cpu_share\":$others,\"flags\":[${flagjson%,}]}")
    done
done
(IFS=,; echo "[${index[*]}]") >"$runs/index.json"
meta="{\"host\":\"$(hostname)\",\"cores\":$(nproc),\"started\":\"$started\",\"finished\":\"$(date --iso-8601=seconds)\",\"load_start\":\"$load_start\",\"load_end\":\"$(cut -d' ' -f1-3 /proc/loadavg)\",\"trainer\":\"$trainer\",\"trainer_version\":\"$("$trainer" --version 2>/dev/null | head -1)\",\"runs_dir\":\"$runs\"}"
report=(--index "$runs/index.json" --out "$results/quality-$stamp" --meta "$meta")
((docs)) && report+=(--docs "$root/docs/images/quality-compare.png")
"$py" "$here/quality_report.py" "${report[@]}" || die "the report failed"
