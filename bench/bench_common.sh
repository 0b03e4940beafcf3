# Sourced by the bench_*.sh harnesses after they set `me`: paths, --help (the calling script's
# header comment), the no-arguments rule, die(), and the binaries both sides use.
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
root=$(cd "$here/.." && pwd)

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[1]}" | sed '$d; s/^# \{0,1\}//'
    exit 0
fi
[[ $# -eq 0 ]] || { echo "$me: takes no arguments (configure with environment variables, see --help)" >&2; exit 2; }

die() { echo "$me: $*" >&2; exit 1; }

# Other processes' CPU during a run skews it. cpu_ticks: "busy total" jiffies of the whole machine
# from /proc/stat; child_ticks FILE: CPU jiffies of the calling shell's finished children, from
# bash's `times` written to FILE (call as `times >"$f"; x=$(child_ticks "$f")`: `times` must run in
# that shell, as a subshell's children counters start at zero).
clk_tck=$(getconf CLK_TCK)
cpu_ticks() {
    local _cpu u n s i w q sq st _rest
    read -r _cpu u n s i w q sq st _rest </proc/stat
    echo "$((u + n + s + q + sq + st)) $((u + n + s + i + w + q + sq + st))"
}
child_ticks() {
    awk -v hz="$clk_tck" 'NR == 2 { n = 0
        for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] }
        printf "%d\n", n * hz }' "$1"
}

trainer=${STREETGAN_TRAINER:-$root/build/release/app/streetgan-trainer}
py=${STREETGAN_PYTHON:-/usr/bin/python3}
