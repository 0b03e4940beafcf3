#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the repository root) on our sources, using the compile commands
# of a configured build, in parallel. Prints each finding; exits 1 if there is any, 0 if none.
# Usage: tools/clang-tidy.sh [--source DIR] [--changed [BASE]] [BUILD_DIR] [PATH_REGEX]
#   --source DIR  the tree to check (default: this script's)
#   --changed     only the translation units of C++ files changed since BASE (committed or not),
#                 a header through its own .cpp or, without one, a file that includes it. BASE
#                 defaults to the commit in tools/clang-tidy-base: the last tree checked whole and
#                 clean (a shallow clone without it checks the files of HEAD's own commit). This is
#                 CI's gate (ctest: clang_tidy_changed); move the base after a clean whole run.
#   BUILD_DIR     a configured build with compile_commands.json (default: build/release)
#   PATH_REGEX    only files matching it (default: every file of core/, app/ and ui/), e.g.
#                 'core/base/' (a few minutes) or 'ui/explorer/'
# LibTorch translation units take clang-tidy ~30 s each: the whole tree is about an hour on 2 cores.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
changed=0 base=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --source) src=$(cd "$2" && pwd); shift 2 ;;
    --changed)
      changed=1; shift
      if [[ $# -gt 0 && $1 != -* && ! -d $1 ]]; then base=$1; shift; fi ;;
    *) break ;;
  esac
done
cd "$src"
build=${1:-build/release}
# (anchored at the tree: the build's generated files, e.g. ui/*_autogen/mocs_compilation.cpp, are not ours)
filter=${2:-"^$(printf '%s' "$src" | sed 's/[][\.*^$(){}?+|/]/\\&/g')/(core|app|ui)/"}
[[ -f $build/compile_commands.json ]] || { echo "clang-tidy.sh: $build/compile_commands.json is missing: configure a build first (cmake --preset release)" >&2; exit 2; }
command -v run-clang-tidy >/dev/null || { echo "clang-tidy.sh: run-clang-tidy not found: apt install clang-tidy" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/streetgan-tidy-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [[ $changed -eq 1 ]]; then
  [[ -n $base ]] || base=$(tr -d '[:space:]' < tools/clang-tidy-base 2>/dev/null || true)
  if [[ -n $base ]] && git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    git diff --name-only --diff-filter=d "$base" -- >"$tmp/changed.txt"
    what="since ${base:0:12}"
  else
    echo "clang-tidy.sh: base ${base:-(none)} is not in this clone (shallow?): checking HEAD's own commit" >&2
    git diff-tree --no-commit-id --name-only --diff-filter=d -r HEAD >"$tmp/changed.txt"
    what="in HEAD's commit"
  fi
  git ls-files --others --exclude-standard >>"$tmp/changed.txt"
  # The translation units to check: each changed .cpp; a changed header through its own .cpp, else
  # the first file of the build that includes it (our includes are relative to core/, ui/ or app/).
  python3 - "$build/compile_commands.json" "$tmp/changed.txt" "$src" >"$tmp/units.txt" <<'PY'
import json, os, re, sys
db, changed, src = sys.argv[1], sys.argv[2], sys.argv[3]
units = {os.path.realpath(e['file']) for e in json.load(open(db))}
ours = re.compile(r'^(core|app|ui)/.*\.(cpp|h)$')
picked = []
for path in sorted(set(l.strip() for l in open(changed) if ours.match(l.strip()))):
    full = os.path.realpath(os.path.join(src, path))
    if not os.path.exists(full):
        continue
    if path.endswith('.cpp'):
        if full in units: picked.append(full)
        continue
    own = full[:-2] + '.cpp'
    if own in units:
        picked.append(own)
        continue
    needle = '#include "' + path.split('/', 1)[1] + '"'
    for u in sorted(units):
        try:
            if needle in open(u, errors='replace').read():
                picked.append(u)
                break
        except OSError:
            pass
for u in sorted(set(picked)):
    print(u)
PY
  if [[ ! -s $tmp/units.txt ]]; then
    echo "clang-tidy.sh: no C++ file of core/, app/ or ui/ changed $what: nothing to check"
    exit 0
  fi
  echo "clang-tidy.sh: $(wc -l <"$tmp/units.txt") translation unit(s) for the files changed $what"
  filter="^($(sed 's/[][\.*^$(){}?+|/]/\\&/g' "$tmp/units.txt" | paste -sd'|'))$"
fi

# GCC's precompiled-header include (-include .../cmake_pch.hxx, a .gch) means nothing to clang:
# give clang-tidy a copy of the compile commands without it.
python3 - "$build/compile_commands.json" "$tmp/compile_commands.json" <<'PY'
import json, re, sys
cc = json.load(open(sys.argv[1]))
for e in cc:
    key = 'command' if 'command' in e else None
    if key:
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
