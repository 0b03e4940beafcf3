#!/usr/bin/env bash
# packaging/check-floor.sh against files compiled here whose needs are known: a C library that
# calls getrandom (GLIBC_2.25, its one versioned need above 2.2.5), a C++ library (GLIBCXX_3.4.21,
# the C++11 std::string), a program built here (its own libc's __libc_start_main), a link to one of
# them (not counted twice) and a text file (not ELF). The highest versions are cross-checked with
# objdump -p's "Version References", another reader of the same section.
# Usage: test_check_floor.sh SOURCE_DIR
set -euo pipefail
src=$1
check=$src/packaging/check-floor.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$tmp/b/lib"
printf '#include <sys/random.h>\nint f(void* b, unsigned n) { return (int)getrandom(b, n, 0); }\n' >"$tmp/r.c"
printf '#include <string>\nstd::string g(const char* s) { return std::string(s) + "x"; }\n' >"$tmp/s.cpp"
printf 'int main(void) { return 0; }\n' >"$tmp/m.c"
cc -shared -fPIC -o "$tmp/b/lib/librandom.so.1" "$tmp/r.c"
c++ -shared -fPIC -o "$tmp/b/lib/libstring.so.1" "$tmp/s.cpp"
ln -s librandom.so.1 "$tmp/b/lib/librandom.so"
echo 'not a program' >"$tmp/b/README"

# The C library alone: exactly GLIBC 2.25, no GLIBCXX.
out=$("$check" "$tmp/b/lib/librandom.so.1")
[[ $out == $'GLIBC 2.25 (librandom.so.1)\nGLIBCXX none' ]] || fail "one C library: got '$out'"
# The folder of both libraries: GLIBC from the C one, GLIBCXX 3.4.21 from the C++ one.
out=$("$check" "$tmp/b")
grep -qx 'GLIBC 2.25 (lib/librandom.so.1)' <<<"$out" || fail "libraries: GLIBC line of '$out'"
grep -qx 'GLIBCXX 3.4.21 (lib/libstring.so.1)' <<<"$out" || fail "libraries: GLIBCXX line of '$out'"
# At the floor: passes; below it: fails, naming the file and the version needed.
"$check" "$tmp/b" --glibc 2.25 --glibcxx 3.4.21 --quiet || fail "at the floor (2.25, 3.4.21) it failed"
if err=$("$check" "$tmp/b" --glibc 2.24 --quiet 2>&1); then fail "below the floor (2.24) it passed"; fi
grep -q 'lib/librandom.so.1 needs GLIBC_2.25 (floor 2.24)' <<<"$err" || fail "below the floor: '$err'"
grep -q '1 of 2 ELF file(s)' <<<"$err" || fail "the link was counted, or a file missed: '$err'"
if err=$("$check" "$tmp/b" --glibcxx 3.4.20 --quiet 2>&1); then fail "below the GLIBCXX floor passed"; fi
grep -q 'lib/libstring.so.1 needs GLIBCXX_3.4.21 (floor 3.4.20)' <<<"$err" || fail "GLIBCXX below the floor: '$err'"
# A libstdc++ carried in the folder (as a bundle's lib/cxx does) defines GLIBCXX versions up to its
# own; definitions are not needs: the folder still needs GLIBCXX 3.4.21 alone.
cxxlib=$(c++ -print-file-name=libstdc++.so.6)
mkdir -p "$tmp/c" && cp -L "$cxxlib" "$tmp/c/libstdc++.so.6" && cp "$tmp/b/lib/libstring.so.1" "$tmp/c/"
out=$("$check" "$tmp/c")
grep -qx 'GLIBCXX 3.4.21 (libstring.so.1)' <<<"$out" || fail "a carried libstdc++'s definitions counted as needs: '$out'"

# A program linked here needs this libc's newest start-up symbol; cross-check with objdump.
cc -o "$tmp/b/prog" "$tmp/m.c"
want=$(objdump -p "$tmp/b"/prog "$tmp/b"/lib/* 2>/dev/null | sed -n 's/.* GLIBC_\([0-9.]*\)$/\1/p' | sort -V | tail -n1)
got=$("$check" "$tmp/b" | sed -n 's/^GLIBC \([0-9.]*\) .*/\1/p')
[[ -n $want && $got == "$want" ]] || fail "GLIBC of the folder: check-floor says '$got', objdump '$want'"
libc=$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)
# Version strings compare as versions: 2.9 is below 2.25 and 2.34 above it.
"$check" "$tmp/b" --glibc "$libc" --quiet || fail "a program built here is above this libc ($libc)"
if "$check" "$tmp/b/lib" --glibc 2.9 --quiet 2>/dev/null; then fail "2.25 passed a floor of 2.9"; fi

# Usage errors: exit 2 with one line.
set +e
"$check" "$tmp/none" >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "a missing folder is not exit 2"
mkdir "$tmp/empty"; "$check" "$tmp/empty" >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "a folder without ELF files is not exit 2"
"$check" "$tmp/b" --glibc two >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "a bad version is not exit 2"
set -e
echo "test_check_floor: ok (this libc: $libc; a program built here needs GLIBC $got)"
