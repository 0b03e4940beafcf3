#!/usr/bin/env bash
# One GPU lease's work as one command (for the device tool's `run`, whose $OUT brings back at
# most 8 files of 16 MiB), ordered so that nothing timed shares the GPU:
#  1. at once: check.sh's correctness (losses, interop, nccl), its sanitizer part, and the G_ema
#     decay comparison of issue 43 (--ema-runs: naive-64 runs of 5,000 steps at batch 128, SWD at
#     every checkpoint, stopped by SIGTERM after --ema-seconds 200 where not done); none of them
#     measures a speed; then the G_ema runs' checkpoints evaluated with G and with G_ema (eval
#     --generator raw|ema), so that both are compared on the same runs (a GPU run is not
#     bit-reproducible: another run's G would differ);
#  2. alone: check.sh's speed part; 3. alone: its data-wait part.
#
#   bench/gpu/lease.sh OUT [--bundle DIR] [--ema-runs "NAME=FLAGS;NAME=FLAGS"] [--ema-steps N] [--ema-seconds S]
#                      [check.sh options...]
#
# OUT/check.tar.gz  check.sh's results folder (summary.md, results.jsonl, logs, run directories
#                   without their checkpoints); OUT/summary.md a copy of its summary;
# OUT/ema.tar.gz    the G_ema runs (events.jsonl with SWD per checkpoint, run.json, logs) and
#                   ema-eval.jsonl (SWD of G and of G_ema at each checkpoint), no checkpoints.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=
bundle=$root/build/gpu-bundle
ema_runs="ema-0.999=--ema 0.999;kimg-10=--ema-kimg 10"
ema_steps=5000
ema_seconds=200  # SIGTERM then: the trainer writes its last checkpoint and stops
check_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --bundle) bundle=$2; shift 2 ;;
    --ema-runs) ema_runs=$2; shift 2 ;;
    --ema-steps) ema_steps=$2; shift 2 ;;
    --ema-seconds) ema_seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --parts|--presets|--batches|--amps|--repeat) check_args+=("$1" "$2"); shift 2 ;;
    --quick|--autotune) check_args+=("$1"); shift ;;
    -*) echo "lease.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "lease.sh: usage: bench/gpu/lease.sh OUT [--bundle DIR] [--ema-runs LIST] [check.sh options]" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${TMPDIR:-/tmp}/streetgan-lease
rm -rf "$work" && mkdir -p "$work/ema"
py=${STREETGAN_PYTHON:-python3}
dev=${STREETGAN_CHECK_DEVICE:-cuda}
T=${STREETGAN_TRAINER:-$bundle/run}
started=$(date +%s)
stamp() { echo "lease.sh: $* at $(($(date +%s) - started)) s"; }
pack() {  # what is there so far comes back even if the call is cut short later
  tar -C "$work" --exclude='*.pt' --exclude=tb --exclude=packed --exclude=jpeg -czf "$out/check.tar.gz" check 2>/dev/null
  tar -C "$work" --exclude='*.pt' --exclude=tb -czf "$out/ema.tar.gz" ema 2>/dev/null
  cp "$work/check/summary.md" "$out/summary.md" 2>/dev/null
}

# 1. Everything that measures no speed, at once.
steps_q=$ema_steps ema_batch=128
for a in "${check_args[@]}"; do [[ $a == --quick ]] && { steps_q=10; ema_batch=16; }; done  # a dry run of the plumbing
ema_pids=()
IFS=';' read -r -a settings <<<"$ema_runs"
for setting in "${settings[@]}"; do
  [[ -n $setting ]] || continue
  name=${setting%%=*} flags=${setting#*=}
  # One epoch of synthetic scenes (no epoch-end checkpoints): a checkpoint every fifth of the run.
  # shellcheck disable=SC2086  # FLAGS are words
  timeout -s TERM -k 30 "$ema_seconds" "$T" train --run-dir "$work/ema/$name" --preset naive-64 --data synthetic --synthetic-images 100000000 --steps "$steps_q" --batch "$ema_batch" --seed 1 \
    --device "$dev" --amp bf16 --loader-threads 5 --checkpoint-every $((steps_q / 5)) --sample-every 0 --log-every 50 \
    --metrics swd --metric-every-checkpoints 1 --keep-checkpoints 0 $flags >"$work/ema/$name.log" 2>&1 &
  ema_pids+=($!)
done
"$root/bench/gpu/check.sh" "$work/check" --bundle "$bundle" "${check_args[@]}" --parts losses,interop,nccl &
c1=$!
"$root/bench/gpu/check.sh" "$work/check" --bundle "$bundle" "${check_args[@]}" --parts sanitizer &
c2=$!
wait "$c1" "$c2"
stamp "correctness and sanitizer done"
pack
for p in "${ema_pids[@]}"; do wait "$p"; done
stamp "G_ema runs done"
pack

# G and G_ema of every G_ema run's checkpoints, by the same evaluation (same seed and samples;
# the training-time SWD is of G_ema alone, on other draws), six at a time.
evaluate() {  # evaluate RUN CHECKPOINT GENERATOR
  "$T" eval --checkpoint "$2" --metric swd --generator "$3" --seed 1 --device "$dev" --json 2>>"$work/ema/eval.log" |
    "$py" -c 'import json,sys; d=json.load(sys.stdin); d.update(run=sys.argv[1], checkpoint=sys.argv[2], generator=sys.argv[3]); print(json.dumps(d))' \
      "$1" "$(basename "$2")" "$3" >>"$work/ema/ema-eval.jsonl" 2>>"$work/ema/eval.log"
}
n=0
for setting in "${settings[@]}"; do
  name=${setting%%=*}
  for ck in "$work/ema/$name/checkpoints/"checkpoint_*.pt; do
    [[ -f $ck ]] || continue
    for gen in raw ema; do
      evaluate "$name" "$ck" "$gen" &
      (( ++n % 6 == 0 )) && wait
    done
  done
done
wait
stamp "G and G_ema evaluated"
pack

# 2, 3. Speed, then data wait, each alone on the GPU.
"$root/bench/gpu/check.sh" "$work/check" --bundle "$bundle" "${check_args[@]}" --parts speed
stamp "speed done"
pack
"$root/bench/gpu/check.sh" "$work/check" --bundle "$bundle" "${check_args[@]}" --parts datawait
stamp "data wait done"
pack

ls -l "$out"
