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

trainer=${STREETGAN_TRAINER:-$root/build/release/app/streetgan-trainer}
py=${STREETGAN_PYTHON:-/usr/bin/python3}
