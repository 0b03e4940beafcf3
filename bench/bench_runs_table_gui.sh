#!/bin/bash
# The Runs table page filling with BENCH_RUNS runs (default 1000), half of them on this computer
# and half "remote": read through a private OpenSSH server on 127.0.0.1 (`streetgan-trainer ls
# ROOT --table --json` over SSH, as the app does for a host). Trains one real tiny run, copies it
# into the runs (bench/make_runs_table.py), then runs bench_runs_table_gui offscreen (or under the
# display given by QT_QPA_PLATFORM): the time until the table holds every run and the longest
# GUI-thread stall meanwhile (a 5 ms heartbeat), then the same for a refresh. Prints one JSON line.
# Not a test: it asserts nothing. Needs /usr/sbin/sshd and ssh-keygen (the remote tests' fixture).
# Environment: BENCH_RUNS, BENCH_METRICS_LINES (100), BENCH_WORK (a temporary folder, removed).
set -euo pipefail
me=bench_runs_table_gui.sh
source "$(dirname "$0")/bench_common.sh"
n=${BENCH_RUNS:-1000}
lines=${BENCH_METRICS_LINES:-100}
gui=${BENCH_RUNS_TABLE_GUI:-$root/build/release/ui/bench_runs_table_gui}
[[ -x $trainer ]] || die "streetgan-trainer not built: cmake --build --preset release --target streetgan-trainer"
[[ -x $gui ]] || die "bench_runs_table_gui not built: cmake --build --preset release --target bench_runs_table_gui"
work=${BENCH_WORK:-$(mktemp -d /tmp/streetgan-bench-runs-table-gui.XXXXXX)}
[[ -n ${BENCH_WORK:-} ]] || trap 'rm -rf "$work"' EXIT
"$trainer" train --preset tiny-32 --steps 10 --batch 8 --log-every 5 --checkpoint-every 10 --sample-every 10 --metrics swd \
    --metric-swd-samples 64 --run-dir "$work/template" >/dev/null 2>&1 || die "the template run failed"
"$py" "$here/make_runs_table.py" "$work/template" $((n / 2)) "$work/local" "$lines"
"$py" "$here/make_runs_table.py" "$work/template" $((n - n / 2)) "$work/remote" "$lines"
QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} SSH_AUTH_SOCK='' "$gui" "$work/local" --remote "$work/remote" --sshd "$work/sshd" --trainer "$trainer"
