#!/bin/sh
# Fuzzes the parsers of untrusted input with libFuzzer (docs/fuzzing.md).
#
# Usage: tools/fuzz.sh [--seconds N] [--jobs J] [--build-only] [target...]
#   --seconds N   fuzz each target for N seconds of wall time (default 600)
#   --jobs J      fuzz J targets at a time, each one process (default: all of them at once)
#   --build-only  configure and build build/fuzz, then stop
#   target        names of fuzz/<name>_fuzzer.cpp (default: every one)
#
# Configures build/fuzz with clang (STREETGAN_FUZZ=ON, no tests, no GUI) when it is not yet, and
# builds the fuzz_<name> executables. Each target runs under `nice -n 19` over a work corpus
# build/fuzz/corpus/<name> (seeded from fuzz/corpus/<name>, which stays as it is: new inputs are
# merged into the work corpus only), writes crashes, timeouts and out-of-memory inputs to
# build/fuzz/artifacts/<name>/ and its log to build/fuzz/logs/<name>.log. Prints one line per
# target: executions, executions per second, work corpus size, crashing inputs found.
# Exit status 1 when any target found a crash.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build/fuzz
SECONDS_EACH=600
JOBS=0
BUILD_ONLY=0
TARGETS=""
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) SECONDS_EACH=$2; shift 2 ;;
        --jobs) JOBS=$2; shift 2 ;;
        --build-only) BUILD_ONLY=1; shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) TARGETS="$TARGETS $1"; shift ;;
    esac
done
if [ -z "$TARGETS" ]; then
    for f in "$ROOT"/fuzz/*_fuzzer.cpp; do
        n=$(basename "$f" _fuzzer.cpp)
        TARGETS="$TARGETS $n"
    done
fi
for t in $TARGETS; do
    [ -f "$ROOT/fuzz/${t}_fuzzer.cpp" ] || { echo "fuzz.sh: no target '$t' (fuzz/${t}_fuzzer.cpp does not exist)" >&2; exit 2; }
done

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found: install clang (Debian: apt install clang)" >&2; exit 2; }
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
        -DSTREETGAN_FUZZ=ON -DSTREETGAN_BUILD_TESTS=OFF -DSTREETGAN_BUILD_GUI=OFF -DSTREETGAN_TORCH_PCH=OFF >/dev/null
fi
EXES=""
for t in $TARGETS; do EXES="$EXES fuzz_$t"; done
# shellcheck disable=SC2086
nice ninja -C "$BUILD" $EXES
[ "$BUILD_ONLY" = 1 ] && exit 0

mkdir -p "$BUILD/logs"
# Leaks are not what these targets look for (LibTorch keeps registries alive to the end); the
# limits make a runaway allocation or a hang a finding: 2 GiB of RSS, 10 s for one input.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

run_one() {
    t=$1
    work=$BUILD/corpus/$t
    art=$BUILD/artifacts/$t
    mkdir -p "$work" "$art"
    # Both corpora are read; new inputs go to the first, the work corpus (never the repository).
    nice -n 19 "$BUILD/fuzz/fuzz_$t" "$work" "$ROOT/fuzz/corpus/$t" -max_total_time="$SECONDS_EACH" \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$art/" >"$BUILD/logs/$t.log" 2>&1 || true
}

summary() {
    t=$1
    log=$BUILD/logs/$t.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    if [ -z "$execs" ]; then  # killed by a finding: the last status line has the count
        execs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
        rate=$(grep -o 'exec/s: [0-9]*' "$log" | tail -n 1 | sed 's/exec.s: //')
    fi
    corpus=$(find "$BUILD/corpus/$t" -type f | wc -l)
    crashes=$(find "$BUILD/artifacts/$t" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
    printf '%-12s executions %10s  exec/s %6s  corpus %5s  crashes %s\n' "$t" "${execs:-0}" "${rate:-0}" "$corpus" "$crashes"
    [ "$crashes" = 0 ]
}

if [ "$JOBS" = 0 ]; then
    for t in $TARGETS; do run_one "$t" & done
    wait
else
    running=0
    for t in $TARGETS; do
        run_one "$t" &
        running=$((running + 1))
        if [ "$running" -ge "$JOBS" ]; then wait; running=0; fi
    done
    wait
fi
status=0
for t in $TARGETS; do summary "$t" || status=1; done
[ "$status" = 0 ] || echo "fuzz.sh: crashing inputs are in $BUILD/artifacts/<target>/ (logs: $BUILD/logs/); see docs/fuzzing.md" >&2
exit $status
