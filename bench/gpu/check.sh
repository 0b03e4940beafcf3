#!/usr/bin/env bash
# The GPU check (issue 25): one command for a machine with an NVIDIA GPU and PyTorch 2.11 (CUDA),
# run from a checkout that carries the GPU bundle (packaging/gpu-bundle.sh build/gpu-bundle, made
# on the build machine). Everything lands in one results folder; nothing here asserts a speed.
#
#   bench/gpu/check.sh OUT [--bundle DIR] [--quick] [--parts LIST] [--presets LIST]
#
#   --bundle DIR  the bundle (default build/gpu-bundle); its `run` finds torch through
#                 STREETGAN_PYTHON (default python3), the Python the reference side uses too
#   --quick       fewer steps and sizes (a dry run of the script's plumbing, e.g. with
#                 STREETGAN_CHECK_DEVICE=cpu on a machine without a GPU)
#   --parts LIST  a comma-separated subset of correctness,sanitizer,speed,datawait (default: all), so
#                 that a short GPU lease can split the check over two calls; correctness is
#                 losses (loss tracking), interop (checkpoints, sample, explore worker) and nccl
#   --presets L   the speed section's presets (default "naive-64 msls-128"); --batches L (default
#                 "128 512") and --amps L (default "bf16 off") likewise
#   --repeat N    timed runs per speed measurement, in one process each (default 3: min/median/max)
#   --autotune    also torch.compile mode max-autotune on the largest batch in the first amp
#                 (minutes of compiling per shape: left out unless asked)
#
# OUT/results.jsonl  one JSON object per check: {"check", "ok" (true|false|null: not run), ...}
# OUT/summary.md     the tables (correctness, sanitizer, speed) made from results.jsonl
# OUT/log.txt        everything printed; OUT/runs/ the run directories; OUT/gpu.txt nvidia-smi
#
# The checks (about 6 to 8 minutes on an H100):
#  1. correctness: 50 naive-64 steps of the same seed on the CPU and on CUDA in fp32, bf16 and
#     fp16: per-step losses compared (tolerances stated in summary.md); a CUDA checkpoint sampled
#     on the CPU and a CPU checkpoint resumed on CUDA; `sample` and the explore worker on CUDA;
#     `dist-check` (a step's gradients averaged over ranks against the whole batch's) alone with
#     NCCL, and with two ranks: NCCL on two GPUs, Gloo over CUDA tensors on one (NCCL refuses two
#     ranks on one GPU); a 2-rank training run.
#  2. compute-sanitizer memcheck of a 20-step run: its error count.
#  3. speed, side by side: our `bench train` against the PyTorch twin (bench/train_step_reference.py)
#     eager and torch.compile, same model, optimiser and precision; naive-64 and msls-128, batch
#     128 and 512, bf16 and fp32; data wait of a run fed from synthetic scenes; the explore
#     worker's frame time at batch 1.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=
bundle=$root/build/gpu-bundle
quick=0
parts=correctness,sanitizer,speed,datawait
presets="naive-64 msls-128"
batches="128 512"
amps="bf16 off"
repeat=3
autotune=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --bundle) bundle=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --parts) parts=$2; shift 2 ;;
    --presets) presets=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --amps) amps=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --autotune) autotune=1; shift ;;
    -h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "check.sh: usage: bench/gpu/check.sh OUT [--bundle DIR] [--quick] [--parts LIST] [--presets LIST]" >&2; exit 2; }
for p in ${parts//,/ }; do
  case $p in correctness|losses|interop|nccl|sanitizer|speed|datawait) ;;
    *) echo "check.sh: unknown part '$p': use correctness (= losses, interop, nccl), sanitizer, speed, datawait" >&2; exit 2 ;; esac
done
part() { [[ ",$parts," == *",$1,"* ]]; }
py=${STREETGAN_PYTHON:-python3}
dev=${STREETGAN_CHECK_DEVICE:-cuda}
T=${STREETGAN_TRAINER:-$bundle/run}
[[ -x $T ]] || { echo "check.sh: no trainer at $T: make the bundle on the build machine (packaging/gpu-bundle.sh $bundle) and carry it" >&2; exit 2; }
mkdir -p "$out/runs"
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/log.txt") 2>&1
results=$out/results.jsonl
: >>"$results"  # appended to: a second call with other --parts adds its rows
started=$(date +%s)

# record CHECK OK [JSON object of details]
record() {
  local details=${3:-"{}"}
  "$py" - "$1" "$2" "$details" >>"$results" <<'EOF'
import json, sys
check, ok, details = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    d = json.loads(details)
except ValueError:
    d = {"output": details[-2000:]}
d = {"check": check, "ok": {"true": True, "false": False}.get(ok), **(d if isinstance(d, dict) else {"value": d})}
print(json.dumps(d))
EOF
  echo "== $1: ${2}"
}
elapsed() { echo $(($(date +%s) - started)); }

{ nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv || true; } >"$out/gpu.txt" 2>&1
"$T" version --json >"$out/version.json" 2>&1 || true
"$py" -c 'import torch, json; print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}))' >"$out/torch.json" 2>&1 || true
cat "$out/gpu.txt" "$out/version.json" "$out/torch.json"

steps=50
[[ $quick == 1 ]] && steps=6
train() {  # train NAME DEVICE AMP [more options]
  local name=$1 device=$2 amp=$3; shift 3
  rm -rf "$out/runs/$name"
  timeout 300 "$T" train --run-dir "$out/runs/$name" --preset naive-64 --data synthetic --steps "$steps" --batch 64 --seed 7 \
    --device "$device" --amp "$amp" --log-every 1 --sample-every 0 --checkpoint-every "$steps" "$@" >"$out/runs/$name.log" 2>&1
}

# --- 1. correctness -----------------------------------------------------------------------------
# Runs of one seed see the same images and the same z on every device (the loader draws z;
# --aug-noise 0 leaves out the one per-pixel draw made on the device). A DCGAN step at lr 2e-4 is
# chaotic: last-bit differences (TF32 and cuDNN's algorithms against the CPU's, or two runs of
# cuDNN's benchmark) grow until the curves part after 10-20 steps, however correct both are. So
# the check is on the first 10 steps: the largest difference of loss_D and of loss_G, relative to
# max(1, |loss|), under the stated tolerance; the mean absolute difference over all 50 steps is
# reported beside it.
# compare CHECK RUN-A RUN-B TOLERANCE EXIT-A EXIT-B [informational]
compare() {
  local check=$1 a=$2 b=$3 tol=$4 rc_a=$5 rc_b=$6 info=${7:-} details ok
  details=$("$py" - "$out/runs/$a/events.jsonl" "$out/runs/$b/events.jsonl" "$tol" "$rc_a" "$rc_b" <<'EOF'
import json, sys
def losses(path):
    rows = {}
    try:
        for line in open(path):
            e = json.loads(line)
            if e.get("kind") == "metrics":
                rows[e["step"]] = (e.get("loss_d"), e.get("loss_g"))
    except OSError:
        pass
    return rows
a, b = losses(sys.argv[1]), losses(sys.argv[2])
tol, rc_a, rc_b = float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
common = sorted(set(a) & set(b))
first = [s for s in common if s <= 10]  # fewer only in a --quick dry run
if rc_a or rc_b or not first or len(first) < min(10, len(common)):
    print(json.dumps({"ok": False, "exit_a": rc_a, "exit_b": rc_b, "steps_compared": len(common)}))
    sys.exit()
rel = lambda x, y: abs(x - y) / max(1.0, abs(x))
first_d = max(rel(a[s][0], b[s][0]) for s in first)
first_g = max(rel(a[s][1], b[s][1]) for s in first)
print(json.dumps({"ok": first_d < tol and first_g < tol, "tolerance_rel_first_10": tol,
                  "max_rel_loss_d_first_10": first_d, "max_rel_loss_g_first_10": first_g,
                  "mean_abs_loss_d_50": sum(abs(a[s][0] - b[s][0]) for s in common) / len(common),
                  "mean_abs_loss_g_50": sum(abs(a[s][1] - b[s][1]) for s in common) / len(common),
                  "step_1_a": a[first[0]], "step_1_b": b[first[0]], "step_10_a": a[first[-1]], "step_10_b": b[first[-1]]}))
EOF
)
  ok=$("$py" -c 'import json,sys; print(str(json.loads(sys.argv[1]).get("ok")).lower())' "$details")
  if [[ -n $info ]]; then
    details=$("$py" -c 'import json,sys; d=json.loads(sys.argv[1]); d["note"]=sys.argv[2]; d["within"]=d.pop("ok", None); print(json.dumps(d))' "$details" "$info")
    ok=null
  fi
  record "$check" "$ok" "$details"
}
if part correctness || part losses; then
# The runs are independent and judged by their losses, not their time: all at once (the CPU run
# on half the cores), then compared.
declare -A pid rc
start_train() { train "$@" & pid[$1]=$!; }
start_train cpu-off cpu off --threads "$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))" --aug-noise 0
for amp in off bf16 fp16; do
  start_train "dev-$amp" "$dev" "$amp" --aug-noise 0
  # The same run as a CUDA graph (--cuda-graph; captured at step 4): the same kernels on the same
  # values, so within what two eager runs differ by.
  [[ $amp != off && $dev == cuda* ]] && start_train "dev-$amp-graph" "$dev" "$amp" --aug-noise 0 --cuda-graph
done
# BatchNorm fused with its activation (--fused-bn-act, ml/model/FusedBnAct): in fp32 against the
# CPU as the unfused step is, and in bf16 under a graph against the unfused graph.
if [[ $dev == cuda* ]]; then
  start_train "dev-off-fused" "$dev" off --aug-noise 0 --fused-bn-act
  start_train "dev-bf16-fused-graph" "$dev" bf16 --aug-noise 0 --fused-bn-act --cuda-graph
fi
for name in "${!pid[@]}"; do wait "${pid[$name]}"; rc[$name]=$?; done
# fp32 (TF32 convolutions on the GPU) within 2%; bf16 within 10% (its 8-bit mantissa); fp16's
# loss scaler skips its first updates (a scale of 65536 overflows, as torch's GradScaler does),
# so fp16 parts from the CPU run at step 1 by design: reported, not judged; its graph run is.
compare losses_track_cpu_off cpu-off "dev-off" 0.02 "${rc[cpu-off]}" "${rc[dev-off]}"
compare losses_track_cpu_bf16 cpu-off "dev-bf16" 0.1 "${rc[cpu-off]}" "${rc[dev-bf16]}"
compare losses_track_cpu_fp16 cpu-off "dev-fp16" 0.1 "${rc[cpu-off]}" "${rc[dev-fp16]}" "fp16's loss scaler skips its first updates: not expected to track"
if [[ $dev == cuda* ]]; then
  compare cuda_graph_tracks_eager_bf16 "dev-bf16" "dev-bf16-graph" 0.03 "${rc[dev-bf16]}" "${rc[dev-bf16-graph]}"
  compare cuda_graph_tracks_eager_fp16 "dev-fp16" "dev-fp16-graph" 0.03 "${rc[dev-fp16]}" "${rc[dev-fp16-graph]}"
  compare fused_bn_act_tracks_cpu_off cpu-off "dev-off-fused" 0.02 "${rc[cpu-off]}" "${rc[dev-off-fused]}"
  compare fused_bn_act_tracks_unfused_bf16_graph "dev-bf16-graph" "dev-bf16-fused-graph" 0.03 "${rc[dev-bf16-graph]}" "${rc[dev-bf16-fused-graph]}"
  # The kernels' own test (forward, running statistics and gradients against BatchNorm2d and the
  # activation, in a graph too), where the bundle carries it.
  if [[ -x $bundle/tests/test_fused_bn_act ]]; then
    if "$bundle/run-test" "$bundle/tests/test_fused_bn_act" >"$out/runs/test_fused_bn_act.log" 2>&1; then ok=true; else ok=false; fi
    record fused_bn_act_unit_test "$ok" "$(tail -c 1500 "$out/runs/test_fused_bn_act.log" | "$py" -c 'import json,sys; print(json.dumps({"output": sys.stdin.read()}))')"
  fi
fi
fi

if part correctness || part interop; then
ck_dev=$(ls "$out/runs/dev-off/checkpoints/"*.pt 2>/dev/null | tail -1)
ck_cpu=$(ls "$out/runs/cpu-off/checkpoints/"*.pt 2>/dev/null | tail -1)
if [[ -n $ck_dev ]] && "$T" sample --checkpoint "$ck_dev" --seed 3 --device cpu --out "$out/sample-dev-ck-on-cpu.png" >"$out/runs/sample1.log" 2>&1; then
  record checkpoint_from_device_samples_on_cpu true "{\"png\": \"sample-dev-ck-on-cpu.png\"}"
else record checkpoint_from_device_samples_on_cpu false "$(tail -c 1500 "$out/runs/sample1.log" 2>/dev/null | "$py" -c 'import json,sys; print(json.dumps({"output": sys.stdin.read()}))')"; fi
if [[ -n $ck_cpu ]] && "$T" sample --checkpoint "$ck_cpu" --seed 3 --device "$dev" --out "$out/sample-on-dev.png" >"$out/runs/sample2.log" 2>&1; then
  record sample_on_device true "{\"png\": \"sample-on-dev.png\"}"
else record sample_on_device false "$(tail -c 1500 "$out/runs/sample2.log" 2>/dev/null | "$py" -c 'import json,sys; print(json.dumps({"output": sys.stdin.read()}))')"; fi
# A CPU run resumed on the device for a few more steps.
if [[ -n $ck_cpu ]]; then
  cp -r "$out/runs/cpu-off" "$out/runs/cpu-resumed-on-dev"
  if timeout 300 "$T" train --run-dir "$out/runs/cpu-resumed-on-dev" --resume --steps $((steps + 5)) --device "$dev" >"$out/runs/resume.log" 2>&1; then
    record checkpoint_from_cpu_resumes_on_device true
  else record checkpoint_from_cpu_resumes_on_device false "$(tail -c 1500 "$out/runs/resume.log" | "$py" -c 'import json,sys; print(json.dumps({"output": sys.stdin.read()}))')"; fi
fi

# The explore worker on the device: open, then 8 frames of batch 1 (frame time = the reply's ms).
if [[ -n $ck_dev ]]; then
  "$py" - "$T" "$ck_dev" "$dev" >"$out/explore.json" 2>"$out/runs/explore.log" <<'EOF'
import json, subprocess, sys
trainer, ck, dev = sys.argv[1:4]
p = subprocess.Popen([trainer, "explore-worker", "--device", dev], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def ask(req):
    p.stdin.write((json.dumps(req) + "\n").encode()); p.stdin.flush()
    while True:
        h = json.loads(p.stdout.readline())
        if h.get("bytes"):
            p.stdout.read(h["bytes"])
        if "progress" not in h:
            return h
try:
    opened = ask({"id": 1, "op": "open", "checkpoint": ck})
    replies = [ask({"id": 10 + i, "op": "latents", "checkpoint": ck, "seeds": [i], "size": 128, "upscale": "smooth"}) for i in range(9)]
    p.stdin.close()  # EOF ends the worker once its queue is done (quit would end it with no reply to read)
    p.wait(timeout=60)
except (ValueError, OSError, subprocess.TimeoutExpired) as e:  # the worker died: its stderr is in runs/explore.log
    print(json.dumps({"ok": False, "error": "the explore worker stopped answering: %s" % e}))
    sys.exit()
ms = [r.get("ms") for r in replies]
print(json.dumps({"ok": bool(opened.get("ok")) and all(r.get("ok") for r in replies), "device": opened.get("device"),
                  "frame_ms_batch1": ms[1:], "first_frame_ms": ms[0], "errors": [r.get("error") for r in replies if not r.get("ok")]}))
EOF
  details=$(cat "$out/explore.json" 2>/dev/null || echo '{}')
  ok=$("$py" -c 'import json,sys; print(str(json.loads(sys.argv[1] or "{}").get("ok")).lower())' "$details" 2>/dev/null || echo false)
  record explore_worker_on_device "$ok" "$details"
fi

fi

# Distributed. `dist-check` computes one step's D and G gradients averaged over the ranks and
# those of the whole batch in one process, and compares them (naive-64, BatchNorm in eval mode so
# that the split is exact: core/ml/dist/DistCheck.h); exit 0 within its tolerance.
#  - alone: a group of one rank with the device's own backend (NCCL on CUDA): the communicator
#    forms and its collectives run. (`launch --nproc 1` would form no group at all.)
#  - two ranks: NCCL where there are two GPUs, one each. On one GPU, Gloo over CUDA tensors:
#    NCCL refuses two ranks on one GPU ("Duplicate GPU detected", NCCL 2.5 and later).
#  - a 5-step training run of two ranks with the same backend (launch).
if part correctness || part nccl; then
gpus=0
[[ $dev == cuda* ]] && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
one_dev=$dev two_dev=$dev two_backend=auto
if [[ $dev == cuda* ]]; then
  one_dev=cuda:0
  if [[ $gpus -ge 2 ]]; then two_dev=cuda; two_backend=nccl; else two_dev=cuda:0; two_backend=gloo; fi
fi
as_details() {  # the JSON lines a command printed (one per rank), or its last output on failure
  "$py" -c 'import json,sys
lines=[l for l in open(sys.argv[1]).read().splitlines()]
ranks=[json.loads(l) for l in lines if l.startswith("{")]
print(json.dumps({"ranks": ranks, "gpus": int(sys.argv[2]), "output": "\n".join(lines[-12:]) if not ranks else ""}))' "$1" "$gpus"
}
if timeout 120 "$T" dist-check --preset naive-64 --batch 16 --device "$one_dev" >"$out/runs/dist-check-1.log" 2>&1; then ok=true; else ok=false; fi
record dist_check_world_1 "$ok" "$(as_details "$out/runs/dist-check-1.log")"
if timeout 180 "$T" launch --nproc 2 -- dist-check --preset naive-64 --batch 16 --device "$two_dev" --dist-backend "$two_backend" \
    >"$out/runs/dist-check-2.log" 2>&1; then ok=true; else ok=false; fi
record dist_check_world_2 "$ok" "$(as_details "$out/runs/dist-check-2.log")"
rm -rf "$out/runs/dist-train-2"
if timeout 180 "$T" launch --nproc 2 -- train --run-dir "$out/runs/dist-train-2" --preset naive-64 --data synthetic --steps 5 --batch 64 \
    --seed 7 --device "$two_dev" --dist-backend "$two_backend" --log-every 1 --sample-every 0 --checkpoint-every 0 --metric-every-checkpoints 0 >"$out/runs/dist-train-2.log" 2>&1; then
  record train_world_2 true "{\"backend\": \"$two_backend\", \"device\": \"$two_dev\"}"
else
  record train_world_2 false "$(tail -c 1500 "$out/runs/dist-train-2.log" | "$py" -c 'import json,sys; print(json.dumps({"output": sys.stdin.read()}))')"
fi
echo "correctness done at $(elapsed) s"
fi

# --- 2. compute-sanitizer ----------------------------------------------------------------------
# memcheck of short runs, at once: naive-64 in bf16 as a CUDA graph with the fused BatchNorm
# kernels (the path the speed rows favour), and msls-128 in bf16 eager (the 128 px layers).
memcheck() {  # memcheck NAME STEPS [train options]
  local name=$1 n=$2; shift 2
  rm -rf "$out/runs/memcheck-$name"
  timeout 240 compute-sanitizer --tool memcheck --print-limit 20 --target-processes all "$T" train --run-dir "$out/runs/memcheck-$name" \
    --data synthetic --steps "$n" --seed 7 --device "$dev" --log-every 5 --sample-every 0 --checkpoint-every 0 --metric-every-checkpoints 0 "$@" \
    >"$out/memcheck-$name.txt" 2>&1
  local errors
  errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$out/memcheck-$name.txt" | grep -o '[0-9]*' | tail -1)
  if [[ -n $errors ]]; then
    [[ $errors == 0 ]] && ok=true || ok=false
    record "compute_sanitizer_memcheck_$name" "$ok" "{\"errors\": $errors, \"log\": \"memcheck-$name.txt\", \"options\": \"$*\"}"
  else record "compute_sanitizer_memcheck_$name" false "{\"log\": \"memcheck-$name.txt\", \"note\": \"no ERROR SUMMARY line (timed out or failed to start)\"}"; fi
}
if ! part sanitizer; then :
elif command -v compute-sanitizer >/dev/null && [[ $dev == cuda* ]]; then
  # Waited for by their PIDs: a bare `wait` also waits for this script's own `tee` (the process
  # substitution above), which ends only when the script does (it hung the 2026-11-30 lease).
  memcheck naive-64-bf16-graph-fused 12 --preset naive-64 --batch 16 --amp bf16 --cuda-graph --fused-bn-act &
  m1=$!
  memcheck msls-128-bf16 4 --preset msls-128 --batch 8 --amp bf16 &
  m2=$!
  wait "$m1" "$m2"
else
  record compute_sanitizer_memcheck null '{"note": "compute-sanitizer not found or no CUDA device"}'
fi
echo "sanitizer done at $(elapsed) s"

# --- 3. speed ----------------------------------------------------------------------------------
# Like for like: both sides take the batch as uint8 pixels in pinned host memory, copy and
# normalise it on the GPU in every step (with the same Gaussian noise), draw z on the host, run
# cuDNN's benchmark, and time --repeat runs of the same steps in one process (median, min, max).
# Sides: ours eager, ours --cuda-graph, ours --cuda-graph --fused-bn-act, PyTorch eager, and on the
# largest batch in the first amp torch.compile (and max-autotune with --autotune). MFU: the
# step's model FLOPs (ModelFlops, printed by bench train) at each side's median over the GPU's peak.
timed=50; warm=10  # a GPU step takes milliseconds: 50 timed steps are 0.1-2 s of steady work
[[ $quick == 1 ]] && { presets="naive-64"; batches="16"; amps="off"; timed=3; warm=1; repeat=2; }  # dry run
part speed || presets=
ours() {  # ours SIDE [bench options]: the row's preset, batch and amp (the loop's variables)
  local side=$1; shift
  timeout 240 "$T" bench train --preset "$preset" --batch "$batch" --device "$dev" --amp "$amp" --steps "$timed" --warmup "$warm" \
    --repeat "$repeat" --json "$@" >"$out/runs/$side-$key.json" 2>"$out/runs/$side-$key.log"
}
for preset in $presets; do
  for batch in $batches; do
    for amp in $amps; do
      key="${preset}_b${batch}_${amp}"
      ours ours
      if [[ $dev == cuda* ]]; then
        ours graph --cuda-graph
        ours fused --cuda-graph --fused-bn-act
      fi
      noise=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("aug_noise", 0))' "$out/runs/ours-$key.json" 2>/dev/null || echo 0)
      twin=("$py" "$root/bench/train_step_reference.py" --preset "$preset" --batch "$batch" --device "$dev" --amp "$amp" --steps "$timed" --warmup "$warm"
            --repeat "$repeat" --aug-noise "$noise" --json)
      timeout 240 "${twin[@]}" --channels-last >"$out/runs/eager-$key.json" 2>"$out/runs/eager-$key.log"
      # torch.compile costs a minute of compiling per shape: the largest batch in the first amp only.
      if [[ $batch == "${batches##* }" && $amp == "${amps%% *}" ]]; then
        # Without --channels-last: inductor picks the layouts itself, and torch 2.11's channels-last
        # convolution_backward fails its stride check under compile (first GPU check, 2026-11-28).
        timeout 240 "${twin[@]}" --compile >"$out/runs/compile-$key.json" 2>"$out/runs/compile-$key.log"
        [[ $autotune == 1 ]] && timeout 420 "${twin[@]}" --compile --compile-mode max-autotune >"$out/runs/autotune-$key.json" 2>"$out/runs/autotune-$key.log"
      fi
      details=$("$py" - "$out/runs" "$key" <<'EOF'
import json, os, sys
runs, key = sys.argv[1:3]
def load(side):
    try:
        return json.load(open(os.path.join(runs, "%s-%s.json" % (side, key))))
    except (OSError, ValueError):
        return {}
sides = ("ours", "graph", "fused", "eager", "compile", "autotune")
j = {side: load(side) for side in sides}
d = {side: j[side].get("images_per_s") for side in sides}
d["spread"] = {side: [j[side].get("images_per_s_min"), j[side].get("images_per_s_max")] for side in sides if j[side]}
gflop, peak = j["ours"].get("model_gflop_per_image"), j["ours"].get("peak_tflops")
d.update({"model_gflop_per_image": gflop, "peak_tflops": peak, "gpu": j["ours"].get("gpu"), "precision": j["ours"].get("precision"),
          "fused_bn_act_effective": j["fused"].get("fused_bn_act")})
if gflop and peak:
    d["mfu"] = {side: d[side] * gflop / 1e3 / peak for side in sides if d[side]}
best = max(d["ours"] or 0, d["graph"] or 0, d["fused"] or 0)
for side in ("eager", "compile", "autotune"):
    if best and d[side]:
        d["ours_over_" + side] = best / d[side]
d["raw"] = j
print(json.dumps(d))
EOF
)
      record "speed_$key" null "$details"
    done
  done
done

# Data wait, end to end: naive-64 trained at batch 512 in bf16 as a CUDA graph (the fastest step,
# the hardest to feed) from each source, the share of the step spent waiting for the loader
# (data_wait, after the first third: past the loader's start), with the loader threads stated.
#  - synthetic: scenes rendered on the CPU;
#  - packed: a packed cache (data pack; no decoding at training time), where one is given in
#    STREETGAN_CHECK_PACKED (a folder, or a .tar.gz of one, unpacked first);
#  - jpeg: a JPEG folder decoded at training time (--data-path photos), where the build reads
#    photos (a lean GPU build without photo support says so in one line: recorded, not run);
#  - jpeg-auto: the same folder as a user gives it (--data-path auto): on a GPU the trainer packs it
#    first and trains from the pack; the row records what it chose (data_path) and the wall time,
#    packing included.
if part datawait; then
dw_steps=300 dw_batch=512
[[ $quick == 1 ]] && { dw_steps=6; dw_batch=16; }
dw_threads=$(( $(nproc) > 2 ? $(nproc) - 2 : 1 ))
datawait() {  # datawait NAME DATA [TRAIN ARGS...]
  local name=$1 data=$2
  rm -rf "$out/runs/datawait-$name"
  local graph=()
  [[ $dev == cuda* ]] && graph=(--cuda-graph --amp bf16)
  local t0=$SECONDS
  # Packs made for a run (--data-path auto on a GPU) go under $out, not the machine's cache.
  XDG_CACHE_HOME=$out/xdg timeout 300 "$T" train --run-dir "$out/runs/datawait-$name" --preset naive-64 --data "$data" --steps "$dw_steps" --batch "$dw_batch" --seed 7 \
    --device "$dev" "${graph[@]}" --loader-threads "$dw_threads" --log-every 10 --sample-every 0 --checkpoint-every 0 \
    --metric-every-checkpoints 0 "${@:3}" >"$out/runs/datawait-$name.log" 2>&1
  local rc=$? wall=$((SECONDS - t0))
  details=$("$py" - "$out/runs/datawait-$name/events.jsonl" "$name" "$dw_threads" "$rc" "$out/runs/datawait-$name.log" "$wall" <<'EOF'
import json, sys
path, name, threads, rc, log, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
w, ips, advice, chosen = [], [], None, None
try:
    for line in open(path):
        e = json.loads(line)
        if e.get("kind") == "data" and "loader_advice" in e:
            advice = e["loader_advice"].get("message")
        if e.get("kind") == "data" and "data_path" in e:
            chosen = e["data_path"].get("message")
        if e.get("kind") == "metrics" and e.get("data_wait") is not None:
            w.append(e["data_wait"])
            if e.get("img_per_s") is not None:
                ips.append(e["img_per_s"])
except OSError:
    pass
w, ips = w[len(w) // 3:], ips[len(ips) // 3:]  # past the loader's start
d = {"source": name, "loader_threads": threads, "exit": rc, "data_wait_mean": sum(w) / len(w) if w else None, "intervals": len(w),
     "images_per_s_mean": sum(ips) / len(ips) if ips else None, "loader_advice": advice, "data_path": chosen, "wall_s": wall}
if not w:
    d["output"] = open(log, errors="replace").read()[-800:]
print(json.dumps(d))
EOF
)
  record "data_wait_$name" null "$details"
}
datawait synthetic synthetic
packed=${STREETGAN_CHECK_PACKED:-}
if [[ $packed == *.tar.gz ]]; then
  mkdir -p "$out/packed" && tar -C "$out/packed" -xzf "$packed" && packed=$(dirname "$(find "$out/packed" -name index.json | head -1)")
fi
if [[ -n $packed && -f $packed/index.json ]]; then datawait packed "$packed"; else record data_wait_packed null '{"note": "no packed cache given (STREETGAN_CHECK_PACKED)"}'; fi
if "$T" version --json 2>/dev/null | grep -q 'no-photos'; then
  record data_wait_jpeg null '{"note": "this build reads no photos (no-photos): a JPEG folder cannot be trained from here"}'
else
  jpegs=4096; [[ $quick == 1 ]] && jpegs=64
  rm -rf "$out/jpeg" && "$T" data synth --out "$out/jpeg" --count "$jpegs" >"$out/runs/synth.log" 2>&1 && datawait jpeg "$out/jpeg" --data-path photos
  [[ -d $out/jpeg ]] && datawait jpeg-auto "$out/jpeg"
fi
fi

# --- summary ------------------------------------------------------------------------------------
"$py" - "$results" "$out/summary.md" "$(elapsed)" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
out = ["# GPU check", "", "Total time: %s s" % sys.argv[3], "", "| check | ok | details |", "|---|---|---|"]
for r in rows:
    if r["check"].startswith("speed_"):
        continue
    d = {k: v for k, v in r.items() if k not in ("check", "ok", "output")}
    out.append("| %s | %s | %s |" % (r["check"], {True: "yes", False: "**no**", None: "-"}[r["ok"]], json.dumps(d)[:300]))
out += ["", "img/s: the median of --repeat timed runs in one process (min-max in results.jsonl); ours: eager steps; graph: --cuda-graph; "
        "fused: --cuda-graph --fused-bn-act; ours/x takes the fastest of ours. MFU: model FLOPs (ModelFlops) at the median over the GPU's peak.", "",
        "| preset, batch, amp | ours | graph | fused | PyTorch eager | compile | max-autotune | best ours / eager | / compile | MFU best ours | MFU eager |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
f = lambda v, p=0: "-" if v is None else ("%.*f" % (p, v))
pct = lambda v: "-" if v is None else "%.1f%%" % (100 * v)
for r in rows:
    if r["check"].startswith("speed_"):
        mfu = r.get("mfu") or {}
        best = max([mfu.get(s) for s in ("ours", "graph", "fused") if mfu.get(s)] or [None], key=lambda v: v or 0)
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["check"][6:], f(r.get("ours")), f(r.get("graph")), f(r.get("fused")), f(r.get("eager")), f(r.get("compile")), f(r.get("autotune")),
            f(r.get("ours_over_eager"), 2), f(r.get("ours_over_compile"), 2), pct(best), pct(mfu.get("eager"))))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
echo "check.sh: done in $(elapsed) s; results in $out"
