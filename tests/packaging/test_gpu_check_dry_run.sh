#!/usr/bin/env bash
# The GPU check's dry run on the CPU (issue 46 item 1: "a CPU dry run of the whole check in CI so
# it cannot rot"): bench/gpu/lease.sh --quick with STREETGAN_CHECK_DEVICE=cpu runs every part of
# bench/gpu/check.sh (losses, interop, distributed, sanitizer, speed, data wait) and the G_ema runs
# with this build's trainer and Debian's python3-torch as the PyTorch side, and must produce every
# row: the correctness rows pass on the CPU (the CPU against itself), the speed row has both sides
# and the model FLOPs, the data-wait rows their figures, the G_ema evaluation both generators.
#   test_gpu_check_dry_run.sh SOURCE_DIR TRAINER
set -euo pipefail
src=$1 trainer=$2
# check.sh sends its output through a process substitution (tee): a bare `wait` there waits for
# that tee too and never returns. The dry run cannot reach every branch that waits (the sanitizer's
# needs a GPU), so no bare `wait` may be written at all.
if grep -nE '^[[:space:]]*wait[[:space:]]*$|&&[[:space:]]*wait[[:space:]]*$' "$src/bench/gpu/check.sh"; then
  echo "bench/gpu/check.sh: a bare 'wait' (above) waits for its own tee and hangs: wait for the PIDs"
  exit 1
fi
work=$(mktemp -d /tmp/sg-gpu-dry.XXXXXX)
trap 'rm -rf "$work"' EXIT
# A packed cache for the packed data-wait row, where this build packs photos.
packed=
if "$trainer" version --json | grep -q '"features":"photos'; then
  "$trainer" data synth --out "$work/jpeg" --count 48 >/dev/null
  XDG_CACHE_HOME=$work/xdg "$trainer" data pack "$work/jpeg" --size 64 --out "$work/packed" >/dev/null  # its registry line in $work
  packed=$work/packed
fi
STREETGAN_CHECK_DEVICE=cpu STREETGAN_TRAINER=$trainer STREETGAN_PYTHON=${STREETGAN_PYTHON:-/usr/bin/python3} STREETGAN_CHECK_PACKED=$packed \
  TMPDIR=$work "$src/bench/gpu/lease.sh" "$work/out" --quick --ema-steps 4 >"$work/log" 2>&1 || { tail -40 "$work/log"; echo "lease.sh failed"; exit 1; }
tar -C "$work" -xzf "$work/out/check.tar.gz"
tar -C "$work" -xzf "$work/out/ema.tar.gz"
[[ -s $work/out/summary.md ]] || { echo "no summary.md came back"; exit 1; }
"${STREETGAN_PYTHON:-/usr/bin/python3}" - "$work/check/results.jsonl" "$work/ema/ema-eval.jsonl" "$packed" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows[r["check"]] = r
failed = []
def expect(cond, what):
    if not cond:
        failed.append(what)
for check in ("losses_track_cpu_off", "losses_track_cpu_bf16", "checkpoint_from_device_samples_on_cpu", "sample_on_device",
              "checkpoint_from_cpu_resumes_on_device", "explore_worker_on_device", "dist_check_world_1", "dist_check_world_2", "train_world_2"):
    expect(rows.get(check, {}).get("ok") is True, "%s passed: %s" % (check, json.dumps(rows.get(check))[:600]))
expect("losses_track_cpu_fp16" in rows, "the fp16 row (informational on the CPU, which refuses fp16)")
expect("compute_sanitizer_memcheck" in rows, "the sanitizer row (not run without CUDA)")
speed = rows.get("speed_naive-64_b16_off", {})
expect((speed.get("ours") or 0) > 0 and (speed.get("eager") or 0) > 0, "the speed row has ours and PyTorch eager: %s" % json.dumps(speed)[:600])
expect(abs((speed.get("model_gflop_per_image") or 0) - 2.2746) < 0.001, "bench train's model FLOPs for naive-64")
expect(len(speed.get("raw", {}).get("ours", {}).get("images_per_s_runs", [])) == 2, "--repeat's runs in the raw JSON")
for name in ("synthetic", "jpeg", "jpeg-auto") + (("packed",) if sys.argv[3] else ()):
    r = rows.get("data_wait_" + name, {})
    expect(r.get("data_wait_mean") is not None and r.get("exit") == 0, "data wait from %s measured: %s" % (name, json.dumps(r)[:600]))
ev = [json.loads(l) for l in open(sys.argv[2])]
for run in ("ema-0.999", "kimg-10"):
    for gen in ("raw", "ema"):
        expect(any(e["run"] == run and e["generator"] == gen and e.get("swd") for e in ev), "SWD of %s's %s generator" % (run, gen))
if failed:
    print("\n".join(failed))
    sys.exit(1)
print("dry run: %d check rows, %d G_ema evaluations" % (len(rows), len(ev)))
PY
