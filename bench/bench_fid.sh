#!/usr/bin/env bash
# FID wall time on CPU: `streetgan-trainer eval --metric fid` on a naive-64 checkpoint against
# the PyTorch/clean-fid way of computing the same (bench/fid_reference.py), side by side, on an
# architecturally identical Inception-v3 feature extractor with random weights
# (bench/make_inception_fid.py: clean-fid's real weights cannot be downloaded here). The timing is
# representative of inception-2015-12-05.pt; the FID values are not (random weights).
#
# Measures BENCH_FID_SAMPLES generated and as many real images (default 1000: a 2-core machine
# needs ~10 s per 50 images through Inception at 299 px) and extrapolates the feature phases
# linearly to BENCH_FID_TARGET images (default 10000); the statistics phase is reported as
# measured (its covariance part grows with N, the matrix square root does not).
# Prints a table and writes JSON to bench/results/fid-<date>-<time>.json.
# A benchmark, not a test: it never fails on a number, only when a run fails.
#
# Environment (all optional):
#   STREETGAN_TRAINER   trainer binary (default: build/release/app/streetgan-trainer)
#   STREETGAN_PYTHON    Python with torch, torchvision, scipy (default: /usr/bin/python3)
#   BENCH_FID_SAMPLES   generated (= real) images measured (default: 1000)
#   BENCH_FID_TARGET    image count the feature phases are extrapolated to (default: 10000)
#   BENCH_FID_MODEL     an existing TorchScript feature model to use instead of making one
#   BENCH_THREADS       intra-op threads for both sides (default: nproc)
#   BENCH_RESULTS_DIR   where the JSON goes (default: bench/results)
set -euo pipefail
export LC_ALL=C

me=bench_fid.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
samples=${BENCH_FID_SAMPLES:-1000}
target=${BENCH_FID_TARGET:-10000}
threads=${BENCH_THREADS:-$(nproc)}
results_dir=${BENCH_RESULTS_DIR:-$here/results}

[[ -x $trainer ]] || die "trainer not found or not executable: $trainer (build the release preset or set STREETGAN_TRAINER)"
"$py" -c 'import torch, torchvision, scipy' 2>/dev/null || die "$py cannot import torch, torchvision and scipy (install python3-torchvision python3-scipy)"
for v in samples target threads; do [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer, got '${!v}'"; done
((samples >= 2)) || die "BENCH_FID_SAMPLES must be at least 2"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stamp=$(date +%Y%m%d-%H%M%S)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

model=${BENCH_FID_MODEL:-}
if [[ -z $model ]]; then
    model=$work/inception-random.pt
    echo "$me: writing the random-weight Inception-v3 feature model" >&2
    "$py" "$here/make_inception_fid.py" "$model" || die "cannot write the feature model"
fi
[[ -f $model ]] || die "feature model not found: $model"

echo "$me: a naive-64 checkpoint (one training step)" >&2
# --synthetic-images: the real set is the run's training scenes, so it must hold N images.
"$trainer" train --run-dir "$work/run" --preset naive-64 --steps 1 --batch 8 --sample-every 0 --synthetic-images $((samples > 64 ? samples : 64)) \
    --threads "$threads" >"$work/train.log" 2>&1 || { cat "$work/train.log" >&2; die "training the checkpoint failed"; }
ck=$work/run/checkpoints/checkpoint_0.pt

# timed SIDE OUT CMD...: runs CMD with stdout to OUT, records wall seconds and others' CPU share.
timed() {
    local side=$1 out=$2
    shift 2
    local b0 t0 b1 t1 s0 s1 self
    read -r b0 t0 < <(cpu_ticks)
    s0=$(date +%s.%N)
    /usr/bin/time -f '%U %S' -o "$out.rusage" "$@" >"$out" || die "$side run failed: $*"
    s1=$(date +%s.%N)
    read -r b1 t1 < <(cpu_ticks)
    self=$(awk -v hz="$clk_tck" '{ printf "%d", ($1 + $2) * hz }' "$out.rusage")
    awk -v a="$s0" -v b="$s1" -v bb=$((b1 - b0)) -v tt=$((t1 - t0)) -v m="$self" \
        'BEGIN { o = tt > 0 ? (bb - m) / tt : 0; printf "%.3f %.3f\n", b - a, o < 0 ? 0 : o }' >"$out.wall"
    echo "$me: $side done in $(cut -d' ' -f1 "$out.wall") s (others used $(cut -d' ' -f2 "$out.wall") of the CPU)" >&2
}
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"

echo "$me: C++: eval --metric fid, $samples generated + $samples real images, cold cache" >&2
timed cpp "$work/cpp.json" "$trainer" eval --checkpoint "$ck" --metric fid --features "$model" --samples "$samples" \
    --real-samples "$samples" --cache-dir "$work/cache" --json
echo "$me: Python: the same with PyTorch + NumPy/SciPy" >&2
timed python "$work/python.json" "$py" "$here/fid_reference.py" --features "$model" --samples "$samples" --threads "$threads" --json

mkdir -p "$results_dir"
out=$results_dir/fid-$stamp.json
BENCH_WORK=$work BENCH_OUT=$out BENCH_TARGET=$target BENCH_LOAD_START=$load_start BENCH_LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg) \
BENCH_THREADS_USED=$threads BENCH_SAMPLES=$samples "$py" - <<'PY'
import json, os, platform

env = os.environ
work, n, target = env["BENCH_WORK"], int(env["BENCH_SAMPLES"]), int(env["BENCH_TARGET"])
rows = {}
for side in ("cpp", "python"):
    d = json.load(open(os.path.join(work, side + ".json")))
    wall, others = map(float, open(os.path.join(work, side + ".json.wall")).read().split())
    t = d["timing"]
    scale = target / n
    if int(d.get("real_samples", n)) != n:
        raise SystemExit("bench_fid.sh: the %s side measured %s real images, not %d" % (side, d.get("real_samples"), n))
    rows[side] = {"measured_images": n, "wall_s": wall, "others_cpu_share": others, "timing": t,
                  "fid": d["fid"], "per_image_ms": 1000 * t["generated_features"] / n,
                  "extrapolated": {"images": target,
                                   "generated_features_s": t["generated_features"] * scale,
                                   "real_features_s": t["real_features"] * scale,
                                   "metrics_s_measured_at_n": t["metrics"],
                                   "warm_cache_s": t["generated_features"] * scale + t["metrics"],
                                   "cold_cache_s": (t["generated_features"] + t["real_features"]) * scale + t["metrics"]}}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
doc = {"benchmark": "fid", "cpu": cpu, "nproc": os.cpu_count(), "threads": int(env["BENCH_THREADS_USED"]),
       "loadavg_start": env["BENCH_LOAD_START"], "loadavg_end": env["BENCH_LOAD_END"],
       "feature_model": "torchvision inception_v3 architecture, random weights (timing only; FID values meaningless)",
       "rows": rows}
json.dump(doc, open(env["BENCH_OUT"], "w"), indent=2)
c, p = rows["cpp"], rows["python"]
print("%-34s %12s %12s %8s" % ("phase (seconds)", "C++", "Python", "Py/C++"))
for key, label in (("generated_features", "generated features, %d images" % n), ("real_features", "real features, %d images" % n),
                   ("metrics", "statistics + FID")):
    print("%-34s %12.1f %12.1f %8.2f" % (label, c["timing"][key], p["timing"][key], p["timing"][key] / max(c["timing"][key], 1e-9)))
print("%-34s %12.1f %12.1f %8.2f" % ("whole run (wall, incl. start-up)", c["wall_s"], p["wall_s"], p["wall_s"] / c["wall_s"]))
for key, label in (("warm_cache_s", "FID of %d, real stats cached" % target), ("cold_cache_s", "FID of %d, cold cache" % target)):
    print("%-34s %12.0f %12.0f %8.2f   (extrapolated)" % (label, c["extrapolated"][key], p["extrapolated"][key],
                                                        p["extrapolated"][key] / c["extrapolated"][key]))
print("others used %.0f%% / %.0f%% of the CPU during the C++ / Python runs; load %s -> %s; written to %s"
      % (100 * c["others_cpu_share"], 100 * p["others_cpu_share"], doc["loadavg_start"], doc["loadavg_end"], env["BENCH_OUT"]))
PY
