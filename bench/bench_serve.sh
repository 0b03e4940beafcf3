#!/usr/bin/env bash
# Gallery server throughput: `streetgan-trainer serve` against the reference project's Flask app
# logic (bench/gallery_reference.py), same checkpoint, same load from a local client (wrk), both
# servers on loopback, side by side in one run on the same machine.
#
# For each endpoint (/gan_imgs: PNG grid of 16; /gan_gifs: 16-frame SLERP GIF) runs wrk against
# each server R times, alternating which side goes first, and reports the median of successful
# (HTTP 200) requests per second of each side and the ratio C++/Python (> 1: ours is faster).
# Prints a table and writes the same as JSON to bench/results/serve-<date>-<time>.json.
# A benchmark, not a test: it never fails on a number, only when a server or wrk fails.
#
# Environment (all optional):
#   STREETGAN_TRAINER     trainer binary (default: build/release/app/streetgan-trainer)
#   STREETGAN_PYTHON      Python with torch, torchvision, flask, PIL (default: /usr/bin/python3)
#   BENCH_CHECKPOINT      checkpoint to serve (default: a contrast-boosted freshly initialised
#                         naive-64 made by gallery_reference.py --make-checkpoint)
#   BENCH_SECONDS         wrk duration per measurement (default: 10)
#   BENCH_CONNECTIONS     wrk connections, i.e. concurrent requests (default: 4)
#   BENCH_REPEATS         measurements per side and endpoint; the median is reported (default: 3)
#   BENCH_GIF_SIZE        our /gan_gifs size parameter (default: 64, the model's resolution, which
#                         is what the reference's GIF has)
#   BENCH_MAX_RENDERS     our --max-renders (default: BENCH_CONNECTIONS, so that no request of the
#                         benchmark is refused with 503)
#   BENCH_RENDER_THREADS  our --render-threads (default: 1)
#   BENCH_PRECISION       our --precision: auto (default, what `serve` does), fp32 (the reference's arithmetic) or bf16
#   BENCH_PY_THREADS      torch intra-op threads of the reference (default: 0 = torch's default)
#   BENCH_PY_MODE         reference generator mode, train (as the reference runs) or eval (train)
#   BENCH_RESULTS_DIR     where the JSON goes (default: bench/results)
set -euo pipefail
export LC_ALL=C

me=bench_serve.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
reference=$here/gallery_reference.py
seconds=${BENCH_SECONDS:-10}
connections=${BENCH_CONNECTIONS:-4}
repeats=${BENCH_REPEATS:-3}
gif_size=${BENCH_GIF_SIZE:-64}
max_renders=${BENCH_MAX_RENDERS:-$connections}
render_threads=${BENCH_RENDER_THREADS:-1}
precision=${BENCH_PRECISION:-auto}
py_threads=${BENCH_PY_THREADS:-0}
py_mode=${BENCH_PY_MODE:-train}
results_dir=${BENCH_RESULTS_DIR:-$here/results}

[[ -x $trainer ]] || die "trainer not found or not executable: $trainer (build the release preset or set STREETGAN_TRAINER)"
command -v wrk >/dev/null || die "wrk not found (apt-get install wrk)"
"$py" -c 'import torch, torchvision, flask, PIL' 2>/dev/null ||
    die "$py cannot import torch, torchvision, flask and PIL (install python3-torch python3-torchvision python3-flask python3-pil)"
for v in seconds connections repeats gif_size max_renders render_threads; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer, got '${!v}'"
done
[[ $precision == auto || $precision == fp32 || $precision == bf16 ]] || die "BENCH_PRECISION must be auto, fp32 or bf16, got '$precision'"
[[ $py_threads =~ ^[0-9]+$ ]] || die "BENCH_PY_THREADS must be a non-negative integer, got '$py_threads'"

work=$(mktemp -d)
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

stamp=$(date +%Y%m%d-%H%M%S)
started=$(date --iso-8601=seconds)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

checkpoint=${BENCH_CHECKPOINT:-}
if [[ -z $checkpoint ]]; then
    checkpoint=$work/naive-64.pt
    "$py" "$reference" --make-checkpoint "$checkpoint" --preset naive-64 || die "could not make the benchmark checkpoint"
fi
[[ -r $checkpoint ]] || die "cannot read checkpoint $checkpoint"
# The reference side loads the weights our export writes (state-dict for torch.load).
"$trainer" export --checkpoint "$checkpoint" --format state-dict --out "$work/state.pt" >/dev/null ||
    die "streetgan-trainer export failed for $checkpoint"

free_port() { "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_http() {  # wait_http URL PID: until URL answers 200, or the server died
    local i
    for ((i = 0; i < 300; i++)); do
        kill -0 "$2" 2>/dev/null || return 1
        if "$py" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$1" 2>/dev/null; then return 0; fi
        sleep 0.2
    done
    return 1
}

cpp_port=$(free_port)
"$trainer" serve --checkpoint "$checkpoint" --bind "127.0.0.1:$cpp_port" --max-renders "$max_renders" \
    --render-threads "$render_threads" --precision "$precision" >"$work/cpp.log" 2>&1 &
cpp_pid=$!
pids+=("$cpp_pid")
py_port=$(free_port)
py_args=(--state-dict "$work/state.pt" --port "$py_port" --mode "$py_mode")
((py_threads > 0)) && py_args+=(--threads "$py_threads")
"$py" "$reference" "${py_args[@]}" >"$work/python.log" 2>&1 &
py_pid=$!
pids+=("$py_pid")
wait_http "http://127.0.0.1:$cpp_port/health" "$cpp_pid" || { cat "$work/cpp.log" >&2; die "our server did not start"; }
wait_http "http://127.0.0.1:$py_port/health" "$py_pid" || { cat "$work/python.log" >&2; die "the reference server did not start"; }

url_of() {  # url_of SIDE ENDPOINT
    if [[ $1 == cpp ]]; then
        [[ $2 == gan_imgs ]] && echo "http://127.0.0.1:$cpp_port/gan_imgs?n=16&nrow=4" ||
            echo "http://127.0.0.1:$cpp_port/gan_gifs?frames=16&size=$gif_size"
    else
        echo "http://127.0.0.1:$py_port/$2"
    fi
}
pid_of() { [[ $1 == cpp ]] && echo "$cpp_pid" || echo "$py_pid"; }

# Warm-up: first requests pay for lazy initialisation (allocator, oneDNN kernels, imports).
for side in cpp python; do
    for ep in gan_imgs gan_gifs; do
        for _ in 1 2 3; do "$py" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=120).read()' "$(url_of "$side" "$ep")" ||
            die "$side $ep warm-up request failed"; done
    done
done


proc_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# Requests the previous run's client gave up on are still rendered; let them finish first (ours
# reports renders in flight; the reference's threads get the same pause).
settle() {
    local i
    for ((i = 0; i < 150; i++)); do
        "$py" -c 'import json, sys, urllib.request
sys.exit(json.load(urllib.request.urlopen(sys.argv[1], timeout=5))["renders_in_flight"] != 0)' \
            "http://127.0.0.1:$cpp_port/health" 2>/dev/null && break
        sleep 0.2
    done
    sleep 1
}

# measure SIDE ENDPOINT R: one wrk run; writes "$work/SIDE.ENDPOINT.R" = "ok_per_s total non2xx errors others"
measure() {
    local side=$1 ep=$2 r=$3 out=$work/$1.$2.$3 url pid busy0 total0 busy1 total1 srv0 srv1 mine0 mine1
    url=$(url_of "$side" "$ep")
    pid=$(pid_of "$side")
    settle
    read -r busy0 total0 < <(cpu_ticks)
    srv0=$(proc_ticks "$pid")
    times >"$work/times"
    mine0=$(child_ticks "$work/times")
    wrk -t1 -c"$connections" -d"${seconds}s" --timeout 30s "$url" >"$out.wrk" 2>&1 || die "wrk failed against $url: $(cat "$out.wrk")"
    read -r busy1 total1 < <(cpu_ticks)
    srv1=$(proc_ticks "$pid")
    times >"$work/times"
    mine1=$(child_ticks "$work/times")
    kill -0 "$pid" 2>/dev/null || die "the $side server died during the run"
    awk -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) -v m=$((mine1 - mine0 + srv1 - srv0)) -v secs="$seconds" \
        -v srv=$((srv1 - srv0)) -v hz="$clk_tck" '
        /requests in/ { total = $1; d = $4; sub(/s,?$/, "", d); dur = d + 0 }
        /Non-2xx or 3xx responses:/ { non2xx = $NF }
        /Socket errors:/ { gsub(/,/, ""); errors = $4 + $6 + $8 + $10 }
        END {
            if (dur <= 0) dur = secs
            o = t > 0 ? (b - m) / t : 0
            ok = total - non2xx
            cpu = ok > 0 ? 1000 * srv / hz / ok : 0
            printf "%.2f %d %d %d %.3f %.1f\n", ok / dur, total, non2xx, errors, (o < 0 ? 0 : o), cpu
        }' "$out.wrk" >"$out"
    read -r ok total non2xx errors others cpu_ms <"$out"
    ((total > non2xx)) || die "$side $ep: no successful request (see: $(head -c 600 "$out.wrk"))"
    printf '  %-8s r%d/%d %-6s %8s ok req/s %7s server CPU ms/req  (%d requests, %d non-2xx, %d socket errors; others used %s of the CPU)\n' \
        "$ep" "$r" "$repeats" "$side" "$ok" "$cpu_ms" "$total" "$non2xx" "$errors" "$others" >&2
}

echo "$me: $connections connections, ${seconds}s x $repeats per side and endpoint; GIF size $gif_size" >&2
echo "$me: ours: --max-renders $max_renders --render-threads $render_threads --precision $precision; reference: mode $py_mode, $(head -1 "$work/python.log")" >&2
echo "$me: load average at start $load_start" >&2
for ep in gan_imgs gan_gifs; do
    for ((r = 1; r <= repeats; r++)); do
        if ((r % 2)); then order=(cpp python); else order=(python cpp); fi
        for side in "${order[@]}"; do measure "$side" "$ep" "$r"; done
    done
done

mkdir -p "$results_dir"
out=$results_dir/serve-$stamp.json
BENCH_WORK=$work BENCH_OUT=$out BENCH_STARTED=$started BENCH_LOAD_START=$load_start \
BENCH_LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg) BENCH_REPEATS_USED=$repeats BENCH_CONNECTIONS_USED=$connections \
BENCH_SECONDS_USED=$seconds BENCH_GIF_SIZE_USED=$gif_size BENCH_MAX_RENDERS_USED=$max_renders \
BENCH_RENDER_THREADS_USED=$render_threads BENCH_PRECISION_USED=$precision BENCH_PY_MODE_USED=$py_mode BENCH_PY_LINE="$(head -1 "$work/python.log")" \
BENCH_CHECKPOINT_USED=$checkpoint BENCH_TRAINER=$trainer \
"$py" - <<'EOF'
import json, os, statistics

env = os.environ
work, repeats = env["BENCH_WORK"], int(env["BENCH_REPEATS_USED"])
rows = []
for ep in ("gan_imgs", "gan_gifs"):
    runs = {}
    for side in ("cpp", "python"):
        runs[side] = []
        for r in range(1, repeats + 1):
            ok, total, non2xx, errors, others, cpu_ms = open(os.path.join(work, "%s.%s.%d" % (side, ep, r))).read().split()
            runs[side].append({"ok_per_s": float(ok), "requests": int(total), "non_2xx": int(non2xx),
                               "socket_errors": int(errors), "others_cpu_share": float(others),
                               "server_cpu_ms_per_request": float(cpu_ms)})
    med = {s: statistics.median(x["ok_per_s"] for x in runs[s]) for s in runs}
    cpu = {s: statistics.median(x["server_cpu_ms_per_request"] for x in runs[s]) for s in runs}
    rows.append({"endpoint": "/" + ep, "cpp_req_per_s": med["cpp"], "python_req_per_s": med["python"],
                 "ratio": med["cpp"] / med["python"] if med["python"] > 0 else None,
                 "cpp_cpu_ms_per_request": cpu["cpp"], "python_cpu_ms_per_request": cpu["python"],
                 "cpu_ratio": cpu["python"] / cpu["cpp"] if cpu["cpp"] > 0 else None,
                 "cpp_runs": runs["cpp"], "python_runs": runs["python"]})
doc = {"benchmark": "serve", "started": env["BENCH_STARTED"], "load_start": env["BENCH_LOAD_START"],
       "load_end": env["BENCH_LOAD_END"], "connections": int(env["BENCH_CONNECTIONS_USED"]),
       "seconds": int(env["BENCH_SECONDS_USED"]), "repeats": repeats, "gif_size": int(env["BENCH_GIF_SIZE_USED"]),
       "cpp": {"trainer": env["BENCH_TRAINER"], "max_renders": int(env["BENCH_MAX_RENDERS_USED"]),
               "render_threads": int(env["BENCH_RENDER_THREADS_USED"]), "precision": env["BENCH_PRECISION_USED"]},
       "python": {"server": "Flask development server (Werkzeug), threaded=True", "mode": env["BENCH_PY_MODE_USED"],
                  "started": env["BENCH_PY_LINE"]},
       "checkpoint": env["BENCH_CHECKPOINT_USED"], "nproc": os.cpu_count(), "rows": rows}
with open(env["BENCH_OUT"], "w") as f:
    json.dump(doc, f, indent=2)
print("endpoint     C++ req/s  Python req/s   C++/Py   C++ CPU ms/req  Python CPU ms/req  Py/C++")
for row in rows:
    print("%-10s %11.2f %13.2f %8.2f %16.1f %18.1f %7.2f" % (
        row["endpoint"], row["cpp_req_per_s"], row["python_req_per_s"], row["ratio"] or 0,
        row["cpp_cpu_ms_per_request"], row["python_cpu_ms_per_request"], row["cpu_ratio"] or 0))
busiest = max(x["others_cpu_share"] for row in rows for s in ("cpp_runs", "python_runs") for x in row[s])
if busiest > 0.05:
    print("warning: other processes used up to %.0f%% of the CPU during a run; compare on an idle machine" % (100 * busiest))
print("results: " + env["BENCH_OUT"])
EOF
