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
# --branch-at S: a run at the issue's scale takes hours on a CPU per setting, so the settings share
# their first S steps. Every rule's G_ema is the same StyleGAN2 ramp until the rule's cap (its
# half-life in images reaches 5% of the images seen: step 20 x half-life in steps), so the first
# G_ema setting trains to step S, each other G_ema setting continues a copy of that run (`train
# --resume`, checkpoints hard-linked) to --steps with its own flags, and the first continues too. S
# must lie at or below every setting's cap (the script refuses otherwise) and every setting names
# its rule (--ema D or --ema-kimg K). The `--ema 0` setting is then not trained: G's curve is the
# raw G of the first setting's checkpoints. Every figure of this mode comes from `eval --metric swd
# --generator ema|raw` of each kept checkpoint (one noise draw, --seed, for all), not from
# training-time metrics, which are off; the G check then also checks that a resumed copy trains the
# same G as its original.
#
# Usage: bench/bench_ema.sh [--preset P] [--steps N] [--checkpoint-every N] [--batch N] [--threads N]
#            [--seed N] [--swd-samples N] [--setting NAME=FLAGS]... [--device cpu] [--branch-at S]
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

preset=tiny-32 steps=1500 ckpt=125 batch=64 threads=1 seed=1 swd=512 device=cpu branch=0
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
        --branch-at) branch=$2 ;;
        --setting)
            [[ $2 == ?*=* ]] || die "--setting wants NAME=FLAGS, e.g. \"kimg-10=--ema-kimg 10\", not '$2'"
            ((given_settings)) || settings=()
            given_settings=1
            settings+=("$2") ;;
        *) echo "$me: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift 2
done
for v in steps ckpt batch threads seed swd branch; do
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
trap 'rm -rf "$work"; rmdir "$runs" 2>/dev/null || true' EXIT  # a refused call leaves no empty runs folder

metrics=(--metric-every-checkpoints 1 --metrics swd --metric-swd-samples "$swd" --metric-cache-dir "$cache")
# --branch-at: the figures come from `eval` of every checkpoint after training, so none are kept from
# training and every checkpoint stays until then.
((branch)) && metrics=(--metric-every-checkpoints 0 --keep-checkpoints 0)
common=(--preset "$preset" --seed "$seed" --threads "$threads" --batch "$batch" --device "$device"
        --data synthetic --sample-every 0 "${metrics[@]}")
echo "$me: $preset, $steps steps, checkpoint every $ckpt, batch $batch, $threads thread(s), seed $seed, $swd SWD samples$( ((branch)) && echo ", branched at step $branch")" >&2
echo "$me: trainer $trainer; runs in $runs" >&2
started=$(date --iso-8601=seconds)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
if ((!branch)); then
    "$trainer" train --run-dir "$work/prime" "${common[@]}" --steps 1 --checkpoint-every 1 >"$work/prime.log" 2>&1 ||
        die "priming run failed: $(tail -3 "$work/prime.log")"
fi

# train_timed NAME DIR ARGS...: one `train` of setting NAME in DIR (log DIR.log, appended); its wall and
# CPU seconds and the other processes' CPU ticks add to the setting's account.
commands=()
declare -A wall_of cpu_of others_busy_of others_total_of dir_of
train_timed() {
    local name=$1 dir=$2 busy0 total0 busy1 total1 mine0 mine1 t0 t1
    shift 2
    local cmd=("$trainer" train --run-dir "$dir" "$@")
    commands+=("${cmd[*]}")
    read -r busy0 total0 < <(cpu_ticks)
    times >"$work/times"; mine0=$(child_ticks "$work/times")
    t0=$(date +%s.%N)
    "${cmd[@]}" >>"$dir.log" 2>&1 || die "$name run failed (log $dir.log): $(tail -3 "$dir.log")"
    t1=$(date +%s.%N)
    read -r busy1 total1 < <(cpu_ticks)
    times >"$work/times"; mine1=$(child_ticks "$work/times")
    wall_of[$name]=$(awk -v a="${wall_of[$name]:-0}" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.1f", a + t1 - t0 }')
    cpu_of[$name]=$(awk -v a="${cpu_of[$name]:-0}" -v m=$((mine1 - mine0)) -v hz="$clk_tck" 'BEGIN { printf "%.1f", a + m / hz }')
    others_busy_of[$name]=$((${others_busy_of[$name]:-0} + busy1 - busy0 - (mine1 - mine0)))
    others_total_of[$name]=$((${others_total_of[$name]:-0} + total1 - total0))
    dir_of[$name]=$dir
}
others_share() {
    awk -v b="${others_busy_of[$1]}" -v t="${others_total_of[$1]}" 'BEGIN { o = t > 0 ? b / t : 0; printf "%.3f\n", o < 0 ? 0 : o }'
}
# The run's checkpoint events as "step path" lines, in the order written (a file written twice, a
# mid-epoch last checkpoint and then its epoch's end, shows twice).
checkpoint_events() {
    "$py" -c 'import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("kind") == "checkpoint":
        print(e["step"], e["path"])' "$1/events.jsonl"
}
last_checkpoint() { echo "$1/$(checkpoint_events "$1" | tail -1 | cut -d' ' -f2)"; }
eval_json() {
    OMP_NUM_THREADS=$threads "$trainer" eval --checkpoint "$1" --metric swd --swd-samples "$swd" --seed "$seed" --cache-dir "$cache" --generator "$2" --json 2>"$work/eval.err"
}
eval_swd() {
    eval_json "$@" | "$py" -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["swd"])' 2>/dev/null || echo "failed"
}
index_entry() {  # NAME DIR EVALS FLAGS...
    local name=$1 dir=$2 evals=$3 flagjson
    shift 3
    flagjson=$(printf '"%s",' "$@")
    index+=("{\"dataset\":\"synthetic\",\"setting\":\"$name\",\"label\":\"$name\",\"run_dir\":\"$dir\",${evals:+\"evals\":\"$evals\",}\"threads\":$threads,\"wall_s\":${wall_of[$name]},\"cpu_s\":${cpu_of[$name]},\"others_cpu_share\":$(others_share "$name"),\"flags\":[${flagjson%,}]}")
}
# cap_step FLAGS...: the step from which the setting's G_ema leaves StyleGAN2's ramp (its half-life
# in images reaches 5% of the images seen); "off" for --ema 0; fails when the flags name no rule.
cap_step() {
    local ema="" kimg="" prev=""
    for a in "$@"; do
        [[ $prev == --ema ]] && ema=$a
        [[ $prev == --ema-kimg ]] && kimg=$a
        prev=$a
    done
    [[ -n $ema$kimg ]] || return 1
    awk -v e="${ema:-x}" -v k="${kimg:-0}" -v b="$batch" 'BEGIN {
        if (e != "x" && e + 0 == 0) { print "off"; exit }
        if (k + 0 > 0) { printf "%.1f\n", 1000 * k / (0.05 * b); exit }
        printf "%.1f\n", log(0.5) / log(e) / 0.05 }'
}

index=() g_name=""
if ((!branch)); then
    for s in "${settings[@]}"; do
        name=${s%%=*}
        read -r -a flags <<<"${s#*=}"
        dir=$runs/$name
        train_timed "$name" "$dir" "${common[@]}" --steps "$steps" --checkpoint-every "$ckpt" "${flags[@]}"
        # keep the last checkpoint only (the G check below reads it)
        last=$(last_checkpoint "$dir")
        find "$dir/checkpoints" -name '*.pt' ! -path "$last" -delete
        final=$(grep '"kind":"metric"' "$dir/events.jsonl" | tail -1 | sed -n 's/.*"swd":\([0-9.eE+-]*\).*/\1/p')
        printf '%s: %-12s %6.0f s wall, %6.0f s CPU, others used %.0f%% of the CPU, last SWD %s (%s)\n' \
            "$me" "$name" "${wall_of[$name]}" "${cpu_of[$name]}" "$(awk -v o="$(others_share "$name")" 'BEGIN {print 100 * o}')" \
            "${final:-none}" "${s#*=}" >&2
        [[ " ${flags[*]} " == *" --ema 0 "* ]] && g_name=$name
        index_entry "$name" "$dir" "" "${flags[@]}"
    done
else
    ((branch < steps)) || die "--branch-at ($branch) must be below --steps ($steps)"
    gema=() g_flags=()
    for s in "${settings[@]}"; do
        name=${s%%=*}
        read -r -a flags <<<"${s#*=}"
        cap=$(cap_step "${flags[@]}") || die "--branch-at: setting $name names no G_ema rule; give it --ema D or --ema-kimg K"
        if [[ $cap == off ]]; then
            g_name=$name g_flags=("${flags[@]}")
            continue
        fi
        awk -v c="$cap" -v b="$branch" 'BEGIN { exit !(b <= c) }' ||
            die "--branch-at $branch: setting $name's G_ema leaves the ramp at step $cap, so the settings differ before step $branch; branch at or below $cap"
        gema+=("$s")
    done
    ((${#gema[@]})) || die "--branch-at needs a setting with G_ema (--ema D > 0 or --ema-kimg K)"
    first=${gema[0]%%=*}
    read -r -a first_flags <<<"${gema[0]#*=}"
    # evaluate_new NAME: `eval` of the checkpoints NAME's run wrote since the last call, at once,
    # before a later step can replace one (a run's last checkpoint mid-epoch and the next epoch's end
    # share a file name): G_ema into NAME.evals.jsonl, and for the first setting G as well (the
    # `--ema 0` setting's curve). A file evaluated before (the hard-linked first S steps) is not
    # evaluated again.
    declare -A swd_of_file done_of
    evaluate_new() {
        local name=$1 dir=$runs/$1 n=0 step path f key gen out
        while read -r step path; do
            n=$((n + 1))
            ((n > ${done_of[$name]:-0})) || continue
            f=$dir/$path
            [[ -f $f ]] || die "checkpoint $f (step $step) is gone: was it pruned?"
            for gen in ema raw; do
                out=$runs/$name.evals.jsonl
                if [[ $gen == raw ]]; then
                    [[ $name == "$first" && -n $g_name ]] || continue
                    out=$runs/$g_name.evals.jsonl
                fi
                key=$(stat -c %d:%i "$f")-$gen
                if [[ -z ${swd_of_file[$key]:-} ]]; then
                    swd_of_file[$key]=$(eval_json "$f" "$gen") || die "eval of $f failed: $(tail -3 "$work/eval.err")"
                fi
                echo "{\"step\":$step,\"eval\":${swd_of_file[$key]}}" >>"$out"
            done
        done < <(checkpoint_events "$dir")
        done_of[$name]=$n
    }
    echo "$me: $first to step $branch, the run the others continue" >&2
    train_timed "$first" "$runs/$first" "${common[@]}" --steps "$branch" --checkpoint-every "$ckpt" "${first_flags[@]}"
    evaluate_new "$first"
    for s in "${gema[@]:1}" "${gema[0]}"; do
        name=${s%%=*}
        read -r -a flags <<<"${s#*=}"
        dir=$runs/$name
        if [[ $name != "$first" ]]; then
            # A copy of the first run at step S: checkpoints hard-linked (the trainer replaces a
            # checkpoint by a rename, never writes into one), every other file copied (events.jsonl
            # and the logs are appended to). Its account starts with the first run's S steps.
            cp -al "$runs/$first" "$dir"
            find "$dir" -type f ! -name '*.pt' -exec sh -c 'cp -p "$1" "$1.copy" && mv -f "$1.copy" "$1"' _ {} \;
            cp "$runs/$first.log" "$dir.log"
            wall_of[$name]=${wall_of[$first]} cpu_of[$name]=${cpu_of[$first]}
            others_busy_of[$name]=${others_busy_of[$first]} others_total_of[$name]=${others_total_of[$first]}
            evaluate_new "$name"  # the first run's checkpoints: already evaluated, the same files
        fi
        echo "$me: $name from step $branch to $steps (${s#*=})" >&2
        train_timed "$name" "$dir" "${common[@]}" --resume --steps "$steps" --checkpoint-every "$ckpt" "${flags[@]}"
        evaluate_new "$name"
    done
    if [[ -n $g_name ]]; then
        wall_of[$g_name]=${wall_of[$first]} cpu_of[$g_name]=${cpu_of[$first]} dir_of[$g_name]=$runs/$first
        others_busy_of[$g_name]=${others_busy_of[$first]} others_total_of[$g_name]=${others_total_of[$first]}
        index_entry "$g_name" "$runs/$first" "$runs/$g_name.evals.jsonl" "${g_flags[@]}"
    fi
    for s in "${gema[@]}"; do
        name=${s%%=*}
        read -r -a flags <<<"${s#*=}"
        index_entry "$name" "$runs/$name" "$runs/$name.evals.jsonl" "${flags[@]}"
    done
    for s in "${gema[@]}"; do
        dir=$runs/${s%%=*}
        last=$(last_checkpoint "$dir")
        find "$dir/checkpoints" -name '*.pt' ! -path "$last" -delete
    done
fi
(IFS=,; echo "[${index[*]}]") >"$runs/index.json"
meta="{\"host\":\"$(hostname)\",\"cores\":$(nproc),\"started\":\"$started\",\"finished\":\"$(date --iso-8601=seconds)\",\"load_start\":\"$load_start\",\"load_end\":\"$(cut -d' ' -f1-3 /proc/loadavg)\",\"trainer\":\"$trainer\",\"trainer_version\":\"$("$trainer" --version 2>/dev/null | head -1)\",\"runs_dir\":\"$runs\"}"
"$py" "$here/quality_report.py" --index "$runs/index.json" --out "$results/ema-$stamp" --meta "$meta" >/dev/null || die "the report failed"

# The G check: G is the same in every run, so the raw G of each run's last checkpoint scores as the G
# run's (with --branch-at: each copy's continuation trains the same G as the first's).
{
    echo
    echo "## G check and commands"
    echo
    echo "SWD of each run's last checkpoint by \`streetgan-trainer eval --metric swd --swd-samples $swd --seed $seed --generator raw|ema\`:" \
        "G (raw) is the same in every run (it must equal the \`--ema 0\` run's where there is one)."
    if ((branch)); then
        echo "Branched at step $branch: the settings share the first $branch steps of $first's run and each" \
            "continued a copy of it with \`train --resume\`; the $g_name row is the raw G of $first's checkpoints, and every" \
            "figure of the table above is this \`eval\` of a checkpoint (training-time metrics were off)."
    fi
    echo
    echo "| run | G (raw) | G_ema |"
    echo "|---|---|---|"
    for s in "${settings[@]}"; do
        name=${s%%=*}
        ck=$(last_checkpoint "${dir_of[$name]}")
        if [[ $name == "$g_name" ]]; then
            echo "| $name | $(eval_swd "$ck" raw) | - |"
        else
            echo "| $name | $(eval_swd "$ck" raw) | $(eval_swd "$ck" ema) |"
        fi
    done
    echo
    echo "Commands (one after the other; trainer $("$trainer" --version 2>/dev/null | head -1)):"
    echo
    echo '```'
    ((branch)) || echo "${trainer} train --run-dir <tmp> ${common[*]} --steps 1 --checkpoint-every 1   # fills the SWD cache"
    printf '%s\n' "${commands[@]}"
    ((branch)) && echo "${trainer} eval --checkpoint <each checkpoint> --metric swd --swd-samples $swd --seed $seed --cache-dir $cache --generator ema|raw --json"
    echo '```'
} >>"$results/ema-$stamp.md"
cat "$results/ema-$stamp.md"
echo "$me: wrote $results/ema-$stamp.{json,md,png}" >&2
