#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the repository root) on our sources, using the compile commands
# of a configured build, in parallel. Prints each finding; exits 1 if there is any.
# Usage: tools/clang-tidy.sh [BUILD_DIR] [PATH_REGEX]
#   BUILD_DIR   a configured build with compile_commands.json (default: build/release)
#   PATH_REGEX  only files matching it (default: every file of core/, app/ and ui/), e.g.
#               'core/base/' (a few minutes) or 'ui/explorer/'
# LibTorch translation units take clang-tidy ~30 s each: the whole tree is about an hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
filter=${2:-'/(core|app|ui)/'}
[[ -f $build/compile_commands.json ]] || { echo "clang-tidy.sh: $build/compile_commands.json is missing: configure a build first (cmake --preset release)" >&2; exit 2; }
command -v run-clang-tidy >/dev/null || { echo "clang-tidy.sh: run-clang-tidy not found: apt install clang-tidy" >&2; exit 2; }
# GCC's precompiled-header include (-include .../cmake_pch.hxx, a .gch) means nothing to clang:
# give clang-tidy a copy of the compile commands without it.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/streetgan-tidy-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 - "$build/compile_commands.json" "$tmp/compile_commands.json" <<'PY'
import json, re, sys
cc = json.load(open(sys.argv[1]))
for e in cc:
    e['command'] = re.sub(r'\s-include\s+\S*cmake_pch\.hxx', '', e['command'])
    e['command'] = re.sub(r'\s-Winvalid-pch', '', e['command'])
json.dump(cc, open(sys.argv[2], 'w'))
PY
out="$tmp/out.txt"
run-clang-tidy -quiet -p "$tmp" -j "$(nproc)" "$filter" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' >"$out" || true
grep -E "^/.*(warning|error): " "$out" | sort -u || true
n=$( (grep -E "^/.*(warning|error): " "$out" || true) | sort -u | wc -l)
echo "clang-tidy.sh: $n finding(s)"
[[ $n -eq 0 ]]
