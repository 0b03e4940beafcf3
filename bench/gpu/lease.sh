#!/usr/bin/env bash
# One GPU lease's work as one command (for the device tool's `run`, whose $OUT brings back at
# most 8 files of 16 MiB): bench/gpu/check.sh, and optionally the 128 px demo model trained on the
# GPU meanwhile (resources/demo/README.md), packed into a few files under OUT.
#
#   bench/gpu/lease.sh OUT [--demo SECONDS] [--bundle DIR] [check.sh options...]
#
#   --demo SECONDS  train the 128 px demo generator for SECONDS (stopped by SIGTERM, which writes
#                   the last checkpoint) while check.sh's correctness and sanitizer parts run (their
#                   results do not depend on a quiet GPU); the speed part starts after it ends.
#                   The run's G_ema is reduced to OUT/demo-128.pt (float16, G only).
# OUT/check.tar.gz  check.sh's results folder (summary.md, results.jsonl, logs, run directories
#                   without their checkpoints); OUT/summary.md a copy of its summary;
# OUT/demo-run.tar.gz the demo run's events, samples and run.json (no checkpoints).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=
demo=0
bundle=$root/build/gpu-bundle
check_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --demo) demo=$2; shift 2 ;;
    --bundle) bundle=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --parts|--presets|--batches|--amps) check_args+=("$1" "$2"); shift 2 ;;
    --quick) check_args+=("$1"); shift ;;
    -*) echo "lease.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "lease.sh: usage: bench/gpu/lease.sh OUT [--demo SECONDS] [--bundle DIR] [check.sh options]" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${TMPDIR:-/tmp}/streetgan-lease
rm -rf "$work" && mkdir -p "$work"
py=${STREETGAN_PYTHON:-python3}
dev=${STREETGAN_CHECK_DEVICE:-cuda}
parts=correctness,sanitizer,speed,datawait
for ((i = 0; i < ${#check_args[@]}; i++)); do [[ ${check_args[i]} == --parts ]] && parts=${check_args[i + 1]}; done
without() { local keep=() p; for p in ${parts//,/ }; do [[ ,$1, == *,$p,* ]] || keep+=("$p"); done; (IFS=,; echo "${keep[*]}"); }

demo_pid=
if [[ $demo -gt 0 ]]; then
  # The 128 px demo: the custom architecture of resources/demo/README.md, G_ema on (the default),
  # one long epoch of synthetic streets (no epoch-end checkpoints), SWD at every checkpoint.
  echo '{"preset": "custom", "nz": 100, "ngf": 32, "ndf": 32, "nc": 3, "img_size": 128}' >"$work/demo128.json"
  timeout -k 30 -s TERM "$demo" "$bundle/run" train --run-dir "$work/demo128" --config "$work/demo128.json" --data synthetic \
    --synthetic-images 100000000 --steps 1000000 --batch 64 --seed 6 --device "$dev" --loader-threads 8 \
    --sample-every 4000 --checkpoint-every 2000 --log-every 100 >"$work/demo128.log" 2>&1 &
  demo_pid=$!
fi

# While the demo trains: the parts that measure no speed.
first=$(without speed,datawait)
[[ -n $first ]] && "$root/bench/gpu/check.sh" "$work/check" --bundle "$bundle" "${check_args[@]}" --parts "$first"
if [[ -n $demo_pid ]]; then
  wait "$demo_pid"
  echo "lease.sh: demo training ended (exit $?)"
  tail -5 "$work/demo128.log"
  ck=$(ls -t "$work/demo128/checkpoints/"*.pt 2>/dev/null | head -1)
  if [[ -n $ck ]]; then
    "$py" "$root/resources/demo/reduce_checkpoint.py" "$ck" "$out/demo-128.pt" && ls -l "$out/demo-128.pt"
  else
    echo "lease.sh: the demo run wrote no checkpoint (see demo128.log in demo-run.tar.gz)"
  fi
  cp "$work/demo128.log" "$work/demo128/" 2>/dev/null
  tar -C "$work" --exclude='*.pt' --exclude=tb -czf "$out/demo-run.tar.gz" demo128
fi
tar -C "$work" --exclude='*.pt' --exclude=tb -czf "$out/check.tar.gz" check  # again below: what a kill of the second part leaves comes back
second=$(without correctness,sanitizer)
[[ -n $second ]] && "$root/bench/gpu/check.sh" "$work/check" --bundle "$bundle" "${check_args[@]}" --parts "$second"
cp "$work/check/summary.md" "$out/summary.md" 2>/dev/null
tar -C "$work" --exclude='*.pt' --exclude=tb -czf "$out/check.tar.gz" check
ls -l "$out"
