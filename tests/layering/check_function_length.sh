#!/bin/sh
# No function of ui/ longer than 80 lines as lizard counts them (its "length": the screens are
# built from small named builders, CONTRIBUTING.md). lizard comes from pip's index into VENV
# (pinned; Debian 12 packages none), kept between runs.
# Usage: check_function_length.sh SOURCE_DIR VENV [PYTHON]
set -eu
src=$1 venv=$2 python=${3:-/usr/bin/python3}
version=1.24.3
if ! "$venv/bin/lizard" --version 2>/dev/null | grep -qx "$version"; then
  rm -rf "$venv"
  "$python" -m venv "$venv" || { echo "check_function_length: cannot make a venv with $python: apt install python3-venv" >&2; exit 2; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "lizard==$version" ||
    { echo "check_function_length: pip could not install lizard==$version into $venv: check the network to pip's index" >&2; exit 3; }
fi
# -w: warnings only; -L 80: the length bound; -C 1000 and -a 100: no other bound reported.
out=$("$venv/bin/lizard" -l cpp -w -L 80 -C 1000 -a 100 "$src/ui") || true
if [ -n "$out" ]; then
  printf '%s\n' "$out" >&2
  echo "check_function_length: the functions above are over 80 lines: split them into named builders or steps" >&2
  exit 1
fi
echo "check_function_length: every function of ui/ is 80 lines or shorter"
