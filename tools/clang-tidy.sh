#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the repository root) on our sources, using the compile commands
# of a configured build, in parallel. Prints each finding; exits 1 if there is any, 0 if none.
# Usage: tools/clang-tidy.sh [--source DIR] [--all [--record] | --changed [BASE]] [BUILD_DIR] [PATH_REGEX]
#        tools/clang-tidy.sh --self-test
#   --source DIR  the tree to check (default: this script's)
#   --all         every translation unit, except those already checked clean as they are now: a
#                 unit's key is a sha256 of the clang-tidy version, the .clang-tidy files above it,
#                 its compile command (the tree's and the build's paths as placeholders, so that a
#                 clone elsewhere gets the same key) and the content of every file of the tree it
#                 reads (its source and, from Ninja's recorded deps of its object, every header of
#                 the tree it includes; system headers and files of the build are left out). Units
#                 whose key is in tools/clang-tidy-clean (committed) or BUILD_DIR/clang-tidy-clean.local
#                 (this build's own, kept up to date by each run) are skipped; a unit never compiled
#                 in BUILD_DIR has no deps and is always checked. This is CI's gate (ctest:
#                 clang_tidy_all); it writes nothing into the tree but that local cache.
#   --record      with --all: also rewrites tools/clang-tidy-clean with the keys of every unit that
#                 is clean now (the stale lines go). Run it after a change and commit the file, so
#                 that CI re-checks only what changed since. A unit whose sources are newer than
#                 its object (not rebuilt since an edit) is checked but not recorded: build first.
#   --changed     only the translation units of C++ files changed since BASE (committed or not),
#                 a header through its own .cpp or, without one, a file that includes it. BASE
#                 defaults to the commit in tools/clang-tidy-base (a shallow clone without it
#                 checks the files of HEAD's own commit). A quick look before a commit; --all is
#                 the gate.
#   --self-test   --all and --record on a scratch tree with its own Ninja build (clean units are
#                 cached and skipped, in a copy at another path too; a planted finding fails,
#                 named; a changed header re-checks exactly the unit that includes it)
#   BUILD_DIR     a configured build with compile_commands.json (default: build/release); --all
#                 wants it built (Ninja, as the presets configure it)
#   PATH_REGEX    only files matching it (default: every file of core/, app/ and ui/), e.g.
#                 'core/base/' (a few minutes) or 'ui/explorer/'
# LibTorch translation units take clang-tidy ~30 s each: the whole tree (about 250 units) is about
# an hour on 2 cores; --all with nothing changed takes a few seconds.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
me="$src/tools/clang-tidy.sh"
changed=0 all=0 record=0 base=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --source) src=$(cd "$2" && pwd); shift 2 ;;
    --all) all=1; shift ;;
    --record) all=1 record=1; shift ;;
    --self-test) self_test=1; shift ;;
    --changed)
      changed=1; shift
      if [[ $# -gt 0 && $1 != -* && ! -d $1 ]]; then base=$1; shift; fi ;;
    *) break ;;
  esac
done
if [[ ${self_test:-0} -eq 1 ]]; then
  # A scratch tree: .clang-tidy, core/Good.cpp (includes core/Good.h), core/Other.cpp, and a Ninja
  # build of them (build.ninja records each object's deps, as CMake's does) with its compile
  # commands. Each step names what it expected when it fails.
  command -v ninja >/dev/null || { echo "clang-tidy.sh --self-test: ninja not found" >&2; exit 2; }
  t=$(mktemp -d "${TMPDIR:-/tmp}/streetgan-tidy-self-XXXXXX")
  trap 'rm -rf "$t"' EXIT
  fail() { cat "$t/out.txt" 2>/dev/null; echo "clang-tidy.sh --self-test: $*" >&2; exit 1; }
  scratch_build() { # ROOT UNIT...: writes ROOT/build/{build.ninja,compile_commands.json}, builds
    local root=$1 u sep=""; shift
    mkdir -p "$root/build"
    printf 'rule cxx\n  command = c++ -std=c++17 -MD -MF $out.d -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n' >"$root/build/build.ninja"
    printf '[' >"$root/build/compile_commands.json"
    for u in "$@"; do
      printf 'build obj/%s.o: cxx %s/core/%s.cpp\n' "$u" "$root" "$u" >>"$root/build/build.ninja"
      printf '%s{"directory":"%s/build","file":"%s/core/%s.cpp","command":"c++ -std=c++17 -o obj/%s.o -c %s/core/%s.cpp"}' \
        "$sep" "$root" "$root" "$u" "$u" "$root" "$u" >>"$root/build/compile_commands.json"
      sep=,
    done
    printf ']\n' >>"$root/build/compile_commands.json"
    ninja -C "$root/build" >/dev/null
  }
  tidy() { "$me" --source "$1" "${@:2}" >"$t/out.txt" 2>&1; } # ROOT ARGS...
  checked() { grep -q "^clang-tidy.sh: $1 unit(s) checked" "$t/out.txt" || fail "expected $1 unit(s) checked"; }
  a=$t/a b=$t/b
  mkdir -p "$a/core" "$a/tools" && cp "$src/.clang-tidy" "$a/"
  printf '#pragma once\nint f();\n' >"$a/core/Good.h"
  printf '#include "Good.h"\nint f() { return 0; }\n' >"$a/core/Good.cpp"
  printf 'int h() { return 1; }\n' >"$a/core/Other.cpp"
  scratch_build "$a" Good Other
  tidy "$a" --all --record "$a/build" || fail "--all --record on a clean tree failed"
  checked 2
  [[ $(wc -l <"$a/tools/clang-tidy-clean") -eq 2 ]] || fail "expected 2 units recorded: $(cat "$a/tools/clang-tidy-clean")"
  grep -q ' core/Good.cpp$' "$a/tools/clang-tidy-clean" || fail "core/Good.cpp not recorded"
  # the committed cache alone (a fresh build: no local cache) skips both
  rm "$a/build/clang-tidy-clean.local"
  tidy "$a" --all "$a/build" || fail "--all on a recorded tree failed"
  checked 0
  # a clone at another path, built there, gets the same keys
  mkdir -p "$b/core" "$b/tools" && cp "$a/.clang-tidy" "$b/" && cp "$a"/core/*.cpp "$a"/core/*.h "$b/core/"
  cp "$a/tools/clang-tidy-clean" "$b/tools/"
  scratch_build "$b" Good Other
  tidy "$b" --all "$b/build" || fail "--all in a copy failed"
  checked 0
  # a changed header (a comment) re-checks the one unit that includes it; then it is cached locally
  printf '// a comment\n' >>"$b/core/Good.h"
  ninja -C "$b/build" >/dev/null
  tidy "$b" --all "$b/build" || fail "--all after a header's comment failed"
  checked 1
  grep -q "core/Good.cpp: clean" "$t/out.txt" || fail "core/Good.cpp was not the unit checked"
  tidy "$b" --all "$b/build" || fail "a second --all failed"
  checked 0
  # a finding planted in the header fails the unit that includes it, named, and is not recorded
  printf 'int *g() { return 0; }\n' >>"$b/core/Good.h"
  ninja -C "$b/build" >/dev/null
  if tidy "$b" --all --record "$b/build"; then fail "a finding in a header passed"; fi
  checked 1
  grep -q "core/Good.h:4:.*modernize-use-nullptr" "$t/out.txt" || fail "the header's finding is not named"
  grep -q ' core/Good.cpp$' "$b/tools/clang-tidy-clean" && fail "a unit with a finding was recorded"
  grep -q ' core/Other.cpp$' "$b/tools/clang-tidy-clean" || fail "the clean unit was dropped from the record"
  if tidy "$b" --all "$b/build"; then fail "a finding passed the second time"; fi
  checked 1
  # fixed: checked again, clean, recorded
  sed -i 's/return 0; }/return nullptr; }/' "$b/core/Good.h"
  ninja -C "$b/build" >/dev/null
  tidy "$b" --all --record "$b/build" || fail "the fixed header failed"
  checked 1
  grep -q ' core/Good.cpp$' "$b/tools/clang-tidy-clean" || fail "the fixed unit was not recorded"
  # edited and not rebuilt: checked, not recorded (its deps may be out of date)
  printf '// not built\n' >>"$b/core/Other.cpp"
  tidy "$b" --all --record "$b/build" || fail "an edited clean unit failed"
  checked 1
  grep -q "not recorded" "$t/out.txt" || fail "a unit newer than its object was recorded"
  grep -q ' core/Other.cpp$' "$b/tools/clang-tidy-clean" && fail "a unit newer than its object was recorded"
  echo "clang-tidy.sh --self-test: passed"
  exit 0
fi
cd "$src"
build=${1:-build/release}
# (anchored at the tree: the build's generated files, e.g. ui/*_autogen/mocs_compilation.cpp, are not ours)
ours="^$(printf '%s' "$src" | sed 's/[][\.*^$(){}?+|/]/\\&/g')/(core|app|ui)/"
filter=${2:-$ours}
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
if [[ $all -eq 1 ]]; then
  command -v ninja >/dev/null || { echo "clang-tidy.sh: ninja not found (--all reads the build's recorded deps)" >&2; exit 2; }
  version=$(clang-tidy --version | grep -m1 -i 'version')
  # one --all at a time per build (a second one would check the same units): it waits, then skips
  # what the first found clean
  if command -v flock >/dev/null; then
    exec 9>>"$build/clang-tidy.lock"
    if ! flock -n 9; then
      echo "clang-tidy.sh: another tools/clang-tidy.sh --all is running on $build: waiting for it"
      flock 9
    fi
  fi
  rc=0
  python3 - "$src" "$build" "$tmp" "$filter" "$ours" "$record" "$(nproc)" "$version" <<'PY' || rc=$?
import concurrent.futures, hashlib, json, os, re, shlex, subprocess, sys, threading, time
src_arg, build_arg, tmp, scope, ours, record, jobs, version = sys.argv[1:9]
record, jobs = record == '1', int(jobs)
src, build = os.path.realpath(src_arg), os.path.realpath(build_arg)
committed_path = os.path.join(src, 'tools', 'clang-tidy-clean')
local_path = os.path.join(build, 'clang-tidy-clean.local')
SCHEME = 'streetgan clang-tidy cache 1'  # bump when what a key covers changes

def sha(data):
    return hashlib.sha256(data).hexdigest()

def placeholders(text):
    # the build's paths first (it may lie inside the tree), longest first, at path boundaries
    subs = []
    for path, name in ((build, '@BUILD@'), (os.path.abspath(build_arg), '@BUILD@'),
                       (src, '@SRC@'), (os.path.abspath(src_arg), '@SRC@')):
        subs.append((path, name))
    for path, name in sorted(set(subs), key=lambda p: -len(p[0])):
        text = re.sub(re.escape(path) + r'(?=/|\s|"|$)', name, text)
    return text

def ours_rel(path):
    """The path of a file of the tree relative to it, or None (system, LibTorch, the build)."""
    real = os.path.realpath(path)
    if real == build or real.startswith(build + '/') or not real.startswith(src + '/'):
        return None
    return os.path.relpath(real, src)

# The units: the compile commands' files of our tree (ours), the ones to check (scope).
units = {}
for e in json.load(open(os.path.join(build, 'compile_commands.json'))):
    file = os.path.normpath(os.path.join(e['directory'], e['file']))
    if not re.search(ours, file):
        continue
    rel = ours_rel(file)
    if rel is None:
        continue
    cmd = e['command'] if 'command' in e else ' '.join(shlex.quote(a) for a in e['arguments'])
    args = shlex.split(cmd)
    obj = args[args.index('-o') + 1] if '-o' in args[:-1] else None
    if obj is not None:
        obj = os.path.relpath(os.path.normpath(os.path.join(e['directory'], obj)), build)
    u = units.setdefault(rel, {'file': file, 'commands': [], 'objects': [], 'scope': bool(re.search(scope, file))})
    u['commands'].append(placeholders(e['directory']) + '\n' + placeholders(cmd))
    if obj is not None:
        u['objects'].append(obj)

def recorded_deps(objects=()):
    """Ninja's recorded deps of the objects (default: all): the files the compiler read."""
    deps, target = {}, None
    listing = subprocess.run(['ninja', '-C', build, '-t', 'deps', *objects], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        m = re.match(r'^(\S.*): #deps \d+, deps mtime \d+ \((VALID|STALE)\)$', line)
        if m:
            target = m.group(1)
            deps[target] = (m.group(2) == 'VALID', [])
        elif line.startswith('    ') and target is not None:
            deps[target][1].append(line.strip())
        elif not line.strip():
            target = None
    return deps

all_deps = recorded_deps()

def configs_above(rel):
    """The .clang-tidy files of the tree that apply to rel (clang-tidy reads the nearest one)."""
    d, found = os.path.dirname(rel), []
    while True:
        p = os.path.join(d, '.clang-tidy')
        if os.path.isfile(os.path.join(src, p)):
            found.append(p)
        if not d:
            return found
        d = os.path.dirname(d)

def files_of(rel, u, deps):
    """(files of the tree the unit reads, whether its deps are trustworthy for a record, why not)."""
    files, fresh, why = {rel}, True, ''
    if not u['objects']:
        return None, False, 'no object in its compile command'
    for obj in u['objects']:
        if obj not in deps:
            return None, False, 'not compiled in this build (no deps recorded)'
        valid, paths = deps[obj]
        try:
            made = os.stat(os.path.join(build, obj)).st_mtime_ns
        except OSError:
            return None, False, 'its object is missing'
        if not valid:
            fresh, why = False, 'deps out of date'
        for p in paths:
            r = ours_rel(os.path.join(build, p))
            if r is not None:
                files.add(r)
        for r in files:
            try:
                if os.stat(os.path.join(src, r)).st_mtime_ns > made:
                    fresh, why = False, r + ' is newer than its object (not rebuilt)'
            except OSError:
                fresh, why = False, r + ' is gone'
    files.update(configs_above(rel))
    return sorted(files), fresh, why

def key_of(rel, u, files):
    h = hashlib.sha256()
    h.update((SCHEME + '\n' + version.strip() + '\n').encode())
    for c in u['commands']:
        h.update(c.encode() + b'\n')
    for r in files:
        try:
            content = open(os.path.join(src, r), 'rb').read()
        except OSError:
            content = b'(missing)'
        h.update(r.encode() + b'\0' + sha(content).encode() + b'\n')
    return h.hexdigest()

def read_cache(path):
    keys = set()
    try:
        for line in open(path):
            parts = line.split()
            if len(parts) == 2:
                keys.add(parts[0])
    except OSError:
        pass
    return keys

committed, local = read_cache(committed_path), read_cache(local_path)
plan = {}  # rel -> (key or None, deps fresh, why not, files)
begun = time.monotonic()
for rel, u in sorted(units.items()):
    files, fresh, why = files_of(rel, u, all_deps)
    plan[rel] = (key_of(rel, u, files) if files is not None else None, fresh, why, files)
todo = [rel for rel, (key, *_ ) in plan.items() if units[rel]['scope'] and (key is None or key not in committed | local)]
todo.sort(key=lambda rel: (not plan[rel][1], rel))  # the units that can be recorded first
in_committed = sum(1 for rel, (key, *_ ) in plan.items() if units[rel]['scope'] and key in committed)
in_local = sum(1 for rel, (key, *_ ) in plan.items() if units[rel]['scope'] and key not in committed and key in local)
print(f'clang-tidy.sh: {sum(u["scope"] for u in units.values())} unit(s): {in_committed} clean in '
      f'tools/clang-tidy-clean, {in_local} in {os.path.relpath(local_path, src) if local_path.startswith(src + "/") else local_path}, '
      f'{len(todo)} to check', flush=True)
unbuilt = sum(1 for rel in todo if not plan[rel][1])
if unbuilt:
    print(f'clang-tidy.sh: {unbuilt} of them not rebuilt since an edit (or never built): checked last, recorded only '
          'if built meanwhile', flush=True)

# Check: one clang-tidy per unit (its findings, headers included, are that unit's).
finding = re.compile(r'^(/.*|[^\s:][^:]*):\d+:\d+: (warning|error): ')
lock, done, clean_now, not_recorded = threading.Lock(), [0], {}, []
findings, failed = set(), []

stopped = []  # why the run stopped (its scratch copy of the compile commands removed, clang-tidy killed)

def check(rel):
    if stopped:
        return
    start = time.monotonic()
    p = subprocess.run(['clang-tidy', '-p', tmp, '--quiet', units[rel]['file']], capture_output=True, text=True,
                       errors='replace')
    lines = [re.sub(r'\x1b\[[0-9;]*m', '', l) for l in p.stdout.splitlines()]
    found = sorted({l for l in lines if finding.match(l)})
    key, fresh, why = plan[rel][:3]
    if key is not None and not found and p.returncode == 0:
        # recorded only if its deps are up to date now (read again: the build may have run meanwhile)
        # and the files they name are as they were when its key was taken
        files, fresh, why = files_of(rel, units[rel], recorded_deps(units[rel]['objects']))
        if files is None:
            key = None
        elif key_of(rel, units[rel], files) != key:
            fresh, why = False, 'its files changed while it was checked'
    with lock:
        done[0] += 1
        status = 'clean'
        if not os.path.isfile(os.path.join(tmp, 'compile_commands.json')):
            status = f'not checked: {tmp} was removed (by another process?)'
            failed.append((rel, status))
            stopped.append(status)
        elif p.returncode < 0:
            status = f'not checked: clang-tidy was killed (signal {-p.returncode})'
            failed.append((rel, status))
            stopped.append(status)
        elif found:
            status = f'{len(found)} finding(s)'
            findings.update(found)
        elif p.returncode != 0:
            status = f'clang-tidy failed (exit {p.returncode})'
            failed.append((rel, p.stdout + p.stderr))
        elif key is None or not fresh:
            status = f'clean, not recorded: {why}'
            not_recorded.append(rel)
        else:
            clean_now[rel] = key
            with open(local_path, 'a') as f:  # at once: an interrupted run keeps what it did
                f.write(f'{key} {rel}\n')
        print(f'clang-tidy.sh: [{done[0]}/{len(todo)}] {rel}: {status} ({time.monotonic() - start:.0f} s)', flush=True)
        for l in found:
            print('    ' + l, flush=True)

with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
    list(pool.map(check, todo))

def write_cache(path, keys):
    lines = sorted((rel, key) for rel, (key, *_ ) in plan.items() if key is not None and key in keys)
    lines += sorted(clean_now.items())
    text = ''.join(f'{key} {rel}\n' for rel, key in sorted(set(lines)))
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)
    return len(set(lines))

# This build's cache: the units clean now (earlier lines of other states go).
write_cache(local_path, committed | read_cache(local_path))
if record:
    n = write_cache(committed_path, committed | local)
    print(f'clang-tidy.sh: recorded {n} clean unit(s) of {len(units)} in tools/clang-tidy-clean')
for l in sorted(findings):
    print(l)
for rel, out in failed:
    print(f'clang-tidy.sh: clang-tidy failed on {rel}:\n{out}')
if stopped:
    print(f'clang-tidy.sh: stopped after {done[0]} of {len(todo)} unit(s): {stopped[0]}; run it again (what was found clean is kept)')
if record and not_recorded:
    print(f'clang-tidy.sh: {len(not_recorded)} clean unit(s) not recorded (edited since their build): build, then run again')
print(f'clang-tidy.sh: {done[0]} unit(s) checked, {len(findings)} finding(s)' + (f', {len(failed)} failure(s)' if failed else '')
      + f' ({time.monotonic() - begun:.0f} s)')
if not record and not findings and not failed:
    missing = [rel for rel, (key, *_ ) in plan.items() if units[rel]['scope'] and key not in committed]
    if missing:
        print(f'clang-tidy.sh: {len(missing)} unit(s) are not in tools/clang-tidy-clean as they are now '
              '(CI checks them): run tools/clang-tidy.sh --all --record and commit tools/clang-tidy-clean')
sys.exit(1 if findings or failed or stopped else 0)
PY
  exit "$rc"
fi
out="$tmp/out.txt"
run-clang-tidy -quiet -p "$tmp" -j "$(nproc)" "$filter" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' >"$out" || true
grep -E "^/.*(warning|error): " "$out" | sort -u || true
n=$( (grep -E "^/.*(warning|error): " "$out" || true) | sort -u | wc -l)
echo "clang-tidy.sh: $n finding(s)"
[[ $n -eq 0 ]]
