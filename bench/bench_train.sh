#!/usr/bin/env bash
# Training-step throughput, C++ (streetgan-trainer bench train) against the PyTorch reference
# (bench/train_step_reference.py), side by side in one run on the same machine.
#
# For each preset, runs the pair R times, alternating which side goes first, and reports the
# median images/s of each side and the ratio C++/Python (> 1: the C++ trainer is faster).
# Prints a table and writes the same as JSON to bench/results/train-<date>-<time>.json.
# A benchmark, not a test: it never fails on a number, only when a run fails or is missing.
#
# Environment (all optional):
#   STREETGAN_TRAINER   trainer binary (default: build/release/app/streetgan-trainer)
#   STREETGAN_PYTHON    Python with torch (default: /usr/bin/python3, Debian python3-torch)
#   BENCH_PRESETS       presets to run, space separated (default: "naive-64 tiny-32")
#   BENCH_THREADS       intra-op threads for both sides (default: nproc)
#   BENCH_REPEATS       pairs per preset; the median is reported (default: 3)
#   BENCH_<P>_BATCH, BENCH_<P>_STEPS, BENCH_<P>_WARMUP   per preset, <P> is the preset name in
#                       capitals without '-': BENCH_NAIVE64_STEPS=6, BENCH_TINY32_BATCH=128
#   BENCH_RESULTS_DIR   where the JSON goes (default: bench/results)
#   BENCH_COMPILE=1     a third side: the same Python step with torch.compile (PyTorch 2.x: set
#                       STREETGAN_PYTHON to a venv with pip's torch, and STREETGAN_TRAINER to the
#                       `cuda` preset's trainer, to compare both against LibTorch 2.11:
#                       bench/bench_torch2.sh does exactly that)
#
# Defaults are sized for a 2-core machine with Debian's reference BLAS (see bench/README.md):
# naive-64: batch 128, 1 timed step + 1 warm-up (~20 s a step); tiny-32: batch 64, 40 + 5.
set -euo pipefail
export LC_ALL=C

me=bench_train.sh
# here, root, --help, the no-arguments rule, die, trainer, py, cpu_ticks, child_ticks
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
reference=$here/train_step_reference.py
results_dir=${BENCH_RESULTS_DIR:-$here/results}
presets=${BENCH_PRESETS:-naive-64 tiny-32}
threads=${BENCH_THREADS:-$(nproc)}
repeats=${BENCH_REPEATS:-3}
sides=(cpp python)
if [[ ${BENCH_COMPILE:-0} == 1 ]]; then sides+=(compiled); fi

[[ -x $trainer ]] || die "trainer not found or not executable: $trainer (build the release preset or set STREETGAN_TRAINER)"
"$py" -c 'import torch' 2>/dev/null || die "$py cannot import torch (install python3-torch or set STREETGAN_PYTHON)"
[[ $threads =~ ^[1-9][0-9]*$ ]] || die "BENCH_THREADS must be a positive integer, got '$threads'"
[[ $repeats =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPEATS must be a positive integer, got '$repeats'"

# setting PRESET KEY: BENCH_<P>_<KEY> if set, else the preset's default.
setting() {
    local preset=$1 key=$2 var default
    var=BENCH_$(tr -d -- '-' <<<"$preset" | tr '[:lower:]' '[:upper:]')_$key
    case $preset:$key in
        naive-64:BATCH) default=128 ;;
        naive-64:STEPS) default=1 ;;
        naive-64:WARMUP) default=1 ;;
        tiny-32:BATCH) default=64 ;;
        tiny-32:STEPS) default=40 ;;
        tiny-32:WARMUP) default=5 ;;
        *:BATCH) default=128 ;;
        *:STEPS) default=1 ;;
        *:WARMUP) default=1 ;;
    esac
    local value=${!var:-$default}
    [[ $value =~ ^[0-9]+$ ]] || die "$var must be a non-negative integer, got '$value'"
    echo "$value"
}

# The BLAS a binary resolves: on CPU it decides most of LibTorch's speed.
blas_of() {
    local lib
    lib=$(ldd "$1" 2>/dev/null | awk '$1 ~ /blas|blis|mkl/ && $3 ~ /^\// {print $3; exit}') || true
    if [[ -n $lib ]]; then readlink -f "$lib"; fi
}


stamp=$(date +%Y%m%d-%H%M%S)
started=$(date --iso-8601=seconds)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# check_json FILE: the run printed one JSON document with a positive images_per_s; prints it.
check_json() {
    "$py" - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert float(d["images_per_s"]) > 0 and float(d["seconds"]) > 0
print("%.2f" % d["images_per_s"])
EOF
}

# run_side SIDE PRESET BATCH STEPS WARMUP OUTFILE
run_side() {
    local side=$1 preset=$2 batch=$3 steps=$4 warmup=$5 out=$6 rate
    local args=(--preset "$preset" --batch "$batch" --threads "$threads" --steps "$steps"
                --warmup "$warmup" --device cpu --json)
    local busy0 total0 busy1 total1 mine0 mine1
    read -r busy0 total0 < <(cpu_ticks)
    times >"$work/times"
    mine0=$(child_ticks "$work/times")
    if [[ $side == cpp ]]; then
        "$trainer" bench train "${args[@]}" >"$out" || die "C++ run failed: $trainer bench train ${args[*]}"
    elif [[ $side == compiled ]]; then
        "$py" "$reference" "${args[@]}" --compile >"$out" || die "torch.compile run failed: $py $reference ${args[*]} --compile"
    else
        "$py" "$reference" "${args[@]}" >"$out" || die "Python run failed: $py $reference ${args[*]}"
    fi
    read -r busy1 total1 < <(cpu_ticks)
    times >"$work/times"
    mine1=$(child_ticks "$work/times")
    # share of the machine's CPU time that other processes used during the run (0..1)
    awk -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) -v m=$((mine1 - mine0)) \
        'BEGIN { o = t > 0 ? (b - m) / t : 0; printf "%.3f\n", o < 0 ? 0 : o }' >"$out.others"
    rate=$(check_json "$out" 2>/dev/null) || {
        echo "$me: $side run printed no JSON document with images_per_s > 0; its stdout was:" >&2
        head -c 2000 "$out" >&2
        exit 1
    }
    printf '  %-8s r%d/%d %-6s %10s img/s  (others used %s of the CPU)\n' \
        "$preset" "$r" "$repeats" "$side" "$rate" "$(cat "$out.others")" >&2
}

echo "$me: threads $threads, repeats $repeats, presets: $presets" >&2
echo "$me: trainer $trainer" >&2
echo "$me: load average at start $load_start" >&2

for preset in $presets; do
    batch=$(setting "$preset" BATCH)
    steps=$(setting "$preset" STEPS)
    warmup=$(setting "$preset" WARMUP)
    ((batch > 0 && steps > 0)) || die "$preset: batch and steps must be positive"
    echo "$preset batch $batch steps $steps warmup $warmup" >>"$work/presets"
    for ((r = 1; r <= repeats; r++)); do
        # Alternate which side goes first so drift (heat, other load) hits both alike.
        if ((r % 2)); then order=("${sides[@]}"); else order=(); for ((k = ${#sides[@]} - 1; k >= 0; k--)); do order+=("${sides[k]}"); done; fi
        for side in "${order[@]}"; do
            run_side "$side" "$preset" "$batch" "$steps" "$warmup" "$work/$side.$preset.$r.json"
        done
    done
done

mkdir -p "$results_dir"
out=$results_dir/train-$stamp.json

BENCH_WORK=$work BENCH_OUT=$out BENCH_STARTED=$started BENCH_LOAD_START=$load_start \
BENCH_LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg) BENCH_THREADS_USED=$threads BENCH_REPEATS_USED=$repeats \
BENCH_TRAINER=$trainer BENCH_PYTHON=$py BENCH_CPP_BLAS=$(blas_of "$trainer") BENCH_SIDES="${sides[*]}" \
"$py" - <<'EOF'
import json, os, platform, socket, statistics, sys

env = os.environ
work = env["BENCH_WORK"]
repeats = int(env["BENCH_REPEATS_USED"])


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


rows, torch_version, py_blas, warnings = [], None, None, []
with open(os.path.join(work, "presets")) as f:
    for line in f:
        preset, _, batch, _, steps, _, warmup = line.split()
        runs = {}
        for side in env["BENCH_SIDES"].split():
            runs[side] = []
            for r in range(1, repeats + 1):
                with open(os.path.join(work, "%s.%s.%d.json" % (side, preset, r))) as jf:
                    d = json.load(jf)
                for key, want in (("preset", preset), ("batch", int(batch)), ("steps", int(steps)),
                                  ("threads", int(env["BENCH_THREADS_USED"]))):
                    if key in d and d[key] != want:
                        warnings.append("%s %s run %d reports %s=%r, asked for %r" % (side, preset, r, key, d[key], want))
                if side != "cpp":
                    torch_version = d.get("torch", torch_version)
                    py_blas = d.get("blas", py_blas)
                with open(os.path.join(work, "%s.%s.%d.json.others" % (side, preset, r))) as of:
                    others = float(of.read())
                runs[side].append({"seconds": d["seconds"], "images_per_s": d["images_per_s"],
                                   "others_cpu_share": others})
        cpp = statistics.median(x["images_per_s"] for x in runs["cpp"])
        pyt = statistics.median(x["images_per_s"] for x in runs["python"])
        rows.append({
            "preset": preset, "batch": int(batch), "threads": int(env["BENCH_THREADS_USED"]),
            "steps": int(steps), "warmup": int(warmup),
            "cpp_images_per_s": cpp, "python_images_per_s": pyt, "ratio": cpp / pyt,
            "cpp_runs": runs["cpp"], "python_runs": runs["python"],
        })
        if "compiled" in runs:
            comp = statistics.median(x["images_per_s"] for x in runs["compiled"])
            rows[-1].update({"compiled_images_per_s": comp, "ratio_compiled": cpp / comp, "compiled_runs": runs["compiled"]})

busiest = max(x["others_cpu_share"] for row in rows for side in ("cpp_runs", "python_runs", "compiled_runs") for x in row.get(side, []))
if busiest > 0.05:
    warnings.append("other processes used up to %.0f%% of the machine's CPU during a run: the img/s figures "
                    "are low and noisy, the ratio less so (runs alternate)" % (100 * busiest))

doc = {
    "benchmark": "train",
    "started": env["BENCH_STARTED"],
    "host": socket.gethostname(),
    "cpu": cpu_model(),
    "nproc": os.cpu_count(),
    "loadavg_start": env["BENCH_LOAD_START"],
    "loadavg_end": env["BENCH_LOAD_END"],
    "repeats": repeats,
    "statistic": "median",
    "trainer": env["BENCH_TRAINER"],
    "python": env["BENCH_PYTHON"],
    "torch_python": torch_version,
    "blas_cpp": env["BENCH_CPP_BLAS"] or None,
    "blas_python": py_blas,
    "warnings": warnings,
    "rows": rows,
}
with open(env["BENCH_OUT"], "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")

for w in warnings:
    print("warning: " + w, file=sys.stderr)
if doc["blas_cpp"] and py_blas and doc["blas_cpp"] != py_blas:
    print("warning: the two sides use different BLAS libraries (%s vs %s): the ratio compares those too"
          % (doc["blas_cpp"], py_blas), file=sys.stderr)

compiled = "compiled" in env["BENCH_SIDES"].split()
print("%-10s %6s %7s %12s %12s %8s" % ("preset", "batch", "threads", "C++ img/s", "Python img/s", "C++/Py")
      + (" %14s %10s" % ("compiled img/s", "C++/comp") if compiled else ""))
for row in rows:
    print("%-10s %6d %7d %12.1f %12.1f %8.2f" % (row["preset"], row["batch"], row["threads"],
          row["cpp_images_per_s"], row["python_images_per_s"], row["ratio"])
          + (" %14.1f %10.2f" % (row["compiled_images_per_s"], row["ratio_compiled"]) if compiled else ""))
print("median of %d runs each; load average %s -> %s; written to %s"
      % (repeats, doc["loadavg_start"], doc["loadavg_end"], env["BENCH_OUT"]))
EOF
