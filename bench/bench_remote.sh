#!/usr/bin/env bash
# Remote benchmark over loopback SSH, against a private sshd this script starts (like the tests:
# 127.0.0.1, a free high port, generated host and user keys, temp sshd_config; nothing in ~/.ssh
# is read or written), directly and through bench/delay_proxy.py, a loopback TCP proxy that adds a
# round trip (a long link without netem). Figures, never pass/fail.
#  1. Event latency: a tiny detached training run (remote start) logging every step; the events
#     are followed with `remote attach` over SSH, and (for reference) with a local `attach`;
#     latency = receive wall time - the event's "t" written by the trainer. Median, p90, p99, max.
#  1b. The same for a TensorBoard run of another trainer (bench/tensorboard_writer.py: PyTorch's
#     SummaryWriter, a step every 50 ms) on a host without streetgan-trainer: `remote attach`
#     follows it over SFTP; latency = receive wall time - the step's wall time in the file. Needs
#     the TensorBoard venv (tests/python/tb-env.sh; made in build/release/tb-venv when missing).
#  2. SFTP download of a BENCH_REMOTE_MB (200) MB file: `remote fetch` next to OpenSSH's own
#     `sftp` and `scp` on the same file, BENCH_REPEATS (3) times each, alternating; median MB/s.
#     Optionally (BENCH_REMOTE_SWEEP=1) a sweep of requests at first x chunk size for `remote fetch`.
# Both parts run once per round trip of BENCH_RTT_MS ("100 0": through the delay proxy at 100 ms,
# then straight to sshd on loopback). Seconds are the whole command's, connecting included.
# Env: STREETGAN_TRAINER, BENCH_REMOTE_MB (200), BENCH_REPEATS (3), BENCH_LATENCY_STEPS (300),
#      BENCH_RTT_MS ("100 0"), BENCH_REMOTE_SWEEP (0), BENCH_RESULTS_DIR (bench/results).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trainer=${STREETGAN_TRAINER:-$root/build/release/app/streetgan-trainer}
[ -x "$trainer" ] || { echo "bench_remote: no trainer at $trainer: build first (cmake --build --preset release)" >&2; exit 1; }
[ -x /usr/sbin/sshd ] || { echo "bench_remote: /usr/sbin/sshd missing: apt-get install openssh-server" >&2; exit 1; }
mb=${BENCH_REMOTE_MB:-200}; repeats=${BENCH_REPEATS:-3}; steps=${BENCH_LATENCY_STEPS:-300}; sweep=${BENCH_REMOTE_SWEEP:-0}
rtts=${BENCH_RTT_MS:-100 0}
results=${BENCH_RESULTS_DIR:-$root/bench/results}; mkdir -p "$results"
py=/usr/bin/python3
tbvenv=${BENCH_TB_VENV:-$root/build/release/tb-venv}
"$root/tests/python/tb-env.sh" "$tbvenv"
tbpy=$tbvenv/bin/python

work=$(mktemp -d /tmp/streetgan-bench-remote-XXXXXX)
sshd_pid=""; proxy_pid=""
cleanup() {
  if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; fi
  if [ -n "$sshd_pid" ]; then
    # Session processes first (sshd -D leaves them running on SIGTERM), then the server.
    for p in $(ps -o pid= --ppid "$sshd_pid" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    kill "$sshd_pid" 2>/dev/null || true
    wait "$sshd_pid" 2>/dev/null || true
  fi
  for f in "$work"/runs/lat-*/trainer.pid; do if [ -f "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi; done
  rm -rf "$work"
}
trap cleanup EXIT

# --- a private sshd -------------------------------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key" </dev/null
ssh-keygen -q -t ed25519 -N '' -f "$work/id_user" </dev/null
cp "$work/id_user.pub" "$work/authorized_keys"
[ "$(id -u)" = 0 ] && mkdir -p /run/sshd
port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/sshd_config" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $work/host_key
PidFile $work/sshd.pid
AuthorizedKeysFile $work/authorized_keys
StrictModes no
UsePAM no
# No dotfile of the local user in the sessions (Debian bash reads ~/.bashrc under sshd below SHLVL 2)
SetEnv SHLVL=1
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin yes
Subsystem sftp internal-sftp
LogLevel DEBUG1
MaxStartups 100
UseDNS no
CFG
/usr/sbin/sshd -D -e -f "$work/sshd_config" 2>"$work/sshd.log" &
sshd_pid=$!
for _ in $(seq 500); do grep -q "Server listening on 127.0.0.1 port $port" "$work/sshd.log" 2>/dev/null && break; sleep 0.02; done
grep -q "Server listening" "$work/sshd.log" || { echo "bench_remote: sshd did not start:" >&2; cat "$work/sshd.log" >&2; exit 1; }
echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 "$work/host_key.pub")" >"$work/known_hosts"
mkdir -p "$work/home"
export HOME=$work/home SSH_AUTH_SOCK=
# The commands for a port: sshd's own, or the delay proxy's in front of it (same host key).
use_port() {
  local p=$1
  grep -q "^\[127.0.0.1\]:$p " "$work/known_hosts" || echo "[127.0.0.1]:$p $(cut -d' ' -f1-2 "$work/host_key.pub")" >>"$work/known_hosts"
  remote=("$trainer" remote --host 127.0.0.1 --port "$p" --identity "$work/id_user" --known-hosts "$work/known_hosts" --ssh-config none
          --remote-trainer "$trainer")
  sshopts=(-P "$p" -i "$work/id_user" -o UserKnownHostsFile="$work/known_hosts" -o StrictHostKeyChecking=yes -o BatchMode=yes
           -o GlobalKnownHostsFile=/dev/null -F none)
}
start_proxy() { # $1: the round trip in ms; sets proxy_port
  coproc PROXY { exec $py "$root/bench/delay_proxy.py" --rtt-ms "$1" --to "127.0.0.1:$port"; }
  proxy_pid=$PROXY_PID
  local line; read -r line <&"${PROXY[0]}"; proxy_port=${line#ready }
}
stop_proxy() { if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; proxy_pid=""; fi; }
# latency_table UNIT LABEL JSON [LABEL JSON ...]: remote_latency.py's figures, a row per follower.
latency_table() {
  local unit=$1; shift
  printf '%-18s %8s %10s %8s %8s %8s\n' follower "$unit" "median ms" "p90 ms" "p99 ms" "max ms"
  while [ $# -ge 2 ]; do
    $py -c "import json, sys; d = json.loads(sys.argv[2]); print('%-18s %8d %10.1f %8.1f %8.1f %8.1f' % (sys.argv[1], d['live_events'], d['median_ms'], d['p90_ms'], d['p99_ms'], d['max_ms']))" "$1" "$2"
    shift 2
  done
}

mkdir -p "$work/runs/big/checkpoints" "$work/out"
head -c "$((mb * 1024 * 1024))" /dev/urandom >"$work/runs/big/checkpoints/checkpoint_0.pt"
src=$work/runs/big/checkpoints/checkpoint_0.pt
bytes=$(stat -c %s "$src")
results_json=""


for rtt in $rtts; do
if [ "$rtt" = 0 ]; then use_port "$port"; where="loopback (no added delay)"; else start_proxy "$rtt"; use_port "$proxy_port"; where="a $rtt ms round trip (delay_proxy.py)"; fi

# --- 1. event latency ----------------------------------------------------------------------
echo "== event latency over $where: a tiny-32 run logging every step ($steps steps), trainer to client"
run=$("${remote[@]}" start --run-dir "$work/runs/lat-$rtt" --preset tiny-32 --steps "$steps" --batch 8 --log-every 1 --sample-every 0 \
      --checkpoint-every 0 --device cpu --threads 1 --loader-threads 1 --synthetic-images 256 --seed 1 2>"$work/start.err") \
  || { cat "$work/start.err" >&2; exit 1; }
# Both followers start at once: over SSH (the measurement) and local attach (what SSH adds).
$py "$root/bench/remote_latency.py" -- "$trainer" attach "$run" >"$work/lat_local.json" &
local_pid=$!
lat_ssh=$($py "$root/bench/remote_latency.py" -- "${remote[@]}" attach "$run")
wait "$local_pid" || true
lat_local=$(cat "$work/lat_local.json")
latency_table events "remote attach" "$lat_ssh" "local attach" "$lat_local"
echo "target (remote attach): p99 <= the round trip + 50 ms"

# --- 1b. a TensorBoard run, no trainer on the host: followed over SFTP ----------------------------
echo "== a TensorBoard run (SummaryWriter, a step every 50 ms) over $where, no trainer there: remote attach over SFTP, and local attach"
tbdir=$work/runs/tb-$rtt/events
mkdir -p "$tbdir"
"$tbpy" "$root/bench/tensorboard_writer.py" "$tbdir" --steps 200 --every-ms 50 --wait 4 >"$work/tbw.out" &
tbw_pid=$!
for _ in $(seq 600); do grep -q ready "$work/tbw.out" 2>/dev/null && break; sleep 0.05; done  # the first step is written
no_trainer=("${remote[@]}")
no_trainer[${#no_trainer[@]}-1]=/nonexistent/streetgan-trainer
$py "$root/bench/remote_latency.py" --skip-first -- "$trainer" attach "$tbdir" --seconds 18 >"$work/tb_local.json" &
local_pid=$!
tb_ssh=$($py "$root/bench/remote_latency.py" --skip-first -- "${no_trainer[@]}" attach "$tbdir" --seconds 18) || { echo "bench_remote: the follow over SFTP failed: $tb_ssh" >&2; exit 1; }
wait "$local_pid" || true
wait "$tbw_pid" || true
tb_local=$(cat "$work/tb_local.json")
latency_table steps "remote over SFTP" "$tb_ssh" "local attach" "$tb_local"
echo "target: a record shows within 1 s (locally), 1 s plus the round trip (remotely)"
tb_json="\"tensorboard_latency_sftp\": $tb_ssh, \"tensorboard_latency_local\": $tb_local,"

# --- 2. SFTP download --------------------------------------------------------------------------
echo "== SFTP download of a $mb MB file over $where (median of $repeats, alternating)"
cat "$src" >/dev/null
timeit() { # prints seconds taken by "$@", output to /dev/null
  local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>"$work/timeit.err" || { cat "$work/timeit.err" >&2; return 1; }; t1=$(date +%s.%N)
  $py -c "print('%.3f' % ($t1 - $t0))"
}
ours() { rm -f "$work/out/checkpoint_0.pt" "$work/out/checkpoint_0.pt.part"; timeit "${remote[@]}" fetch "$work/runs/big" --checkpoint latest --to "$work/out" "$@"; }
osftp() { rm -f "$work/out/sftp.bin"; timeit sftp "${sshopts[@]}" -b <(echo "get $src $work/out/sftp.bin") root@127.0.0.1; }
oscp() { rm -f "$work/out/scp.bin"; timeit scp "${sshopts[@]}" root@127.0.0.1:"$src" "$work/out/scp.bin"; }
unset times; declare -A times
for i in $(seq "$repeats"); do
  order="ours osftp oscp"; if (( i % 2 == 0 )); then order="oscp osftp ours"; fi
  for tool in $order; do
    times[$tool]="${times[$tool]:-} $($tool)"
    # Our fetch also reports its own transfer time (without process start-up and connecting).
    if [ "$tool" = ours ]; then times[xfer]="${times[xfer]:-} $(grep -o ', [0-9.]* s)' "$work/timeit.err" | tr -dc '0-9.')"; fi
  done
done
cmp -s "$src" "$work/out/checkpoint_0.pt" || { echo "bench_remote: our download differs from the source" >&2; exit 1; }
median() { echo "$@" | tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mbps() { $py -c "print('%.1f' % ($bytes / 1048576 / $1))"; }
m_ours=$(median ${times[ours]}); m_sftp=$(median ${times[osftp]}); m_scp=$(median ${times[oscp]}); m_xfer=$(printf '%.3f' "$(median ${times[xfer]})")
printf '%-34s %10s %10s   %s\n' tool "seconds" "MB/s" "runs (s)"
printf '%-34s %10s %10s   %s\n' "streetgan-trainer remote fetch" "$m_ours" "$(mbps "$m_ours")" "${times[ours]}"
printf '%-34s %10s %10s   %s\n' "  of which the transfer itself" "$m_xfer" "$(mbps "$m_xfer")" "${times[xfer]}"
printf '%-34s %10s %10s   %s\n' "OpenSSH sftp (get)" "$m_sftp" "$(mbps "$m_sftp")" "${times[osftp]}"
printf '%-34s %10s %10s   %s\n' "OpenSSH scp" "$m_scp" "$(mbps "$m_scp")" "${times[oscp]}"
$py -c "print('ours / sftp = %.2f, ours / scp = %.2f (target >= 0.90 of sftp)' % ($m_sftp / $m_ours, $m_scp / $m_ours))"

sweep_rows=""
if [ "$sweep" = 1 ]; then
  echo "== remote fetch over $where: requests in flight at first x KiB per request (one run each, whole command)"
  printf '%-10s %-10s %10s %10s\n' requests "KiB" seconds "MB/s"
  for combo in "1 64" "16 64" "64 64" "16 32" "16 128" "16 255"; do
    set -- $combo
    s=$(ours --requests "$1" --chunk-kib "$2")
    printf '%-10s %-10s %10s %10s\n' "$1" "$2" "$s" "$(mbps "$s")"
    sweep_rows="$sweep_rows{\"requests\":$1,\"kib\":$2,\"seconds\":$s},"
  done
fi
stop_proxy
results_json="$results_json{\"rtt_ms\": $rtt, $tb_json \"latency_remote\": $lat_ssh, \"latency_local\": $lat_local,
 \"seconds\": {\"ours\": [$(echo ${times[ours]} | tr ' ' ',')], \"sftp\": [$(echo ${times[osftp]} | tr ' ' ',')], \"scp\": [$(echo ${times[oscp]} | tr ' ' ',')]},
 \"transfer_seconds_ours\": [$(echo ${times[xfer]} | tr ' ' ',')],
 \"median_seconds\": {\"ours\": $m_ours, \"ours_transfer\": $m_xfer, \"sftp\": $m_sftp, \"scp\": $m_scp},
 \"sweep\": [${sweep_rows%,}]},"
done
echo "ciphers negotiated (sshd log): $(grep -o 'kex: client->server cipher: [^ ]*' "$work/sshd.log" | awk '{print $4}' | sort | uniq -c | tr '\n' ' ')"

out="$results/remote-$(date +%Y%m%d-%H%M%S).json"
cat >"$out" <<JSON
{"runs": [${results_json%,}], "latency_steps": $steps, "download_bytes": $bytes, "repeats": $repeats,
 "nproc": $(nproc), "loadavg": "$(cut -d' ' -f1-3 /proc/loadavg)"}
JSON
echo "results: $out ($(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg))"
