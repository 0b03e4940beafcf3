#!/usr/bin/env bash
# The Debian 13 packages, for real: built in a Debian 13 chroot against its own Qt 6.8 and LibTorch
# 2.6 (packaging/build-debs-chroot.sh), then installed with apt-get into a fresh Debian 13 chroot
# (their dependencies from the archive, as a user's apt would fetch them), where the trainer trains
# a tiny run and the app, under Xvfb, renders the explorer's demo. Part of packaging/release-check.sh
# (it downloads and compiles too much for CI: about 30 minutes with a cold compiler cache).
# Usage: test_debs_chroot.sh SOURCE_DIR WORK_DIR   (root; exit 77: no mmdebstrap or not root)
set -euo pipefail
src=$1 work=$2
[[ $(id -u) -eq 0 ]] || { echo "SKIP: chroots need root"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap is not installed"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
box=$work/trixie
trap '"$src/packaging/chroot.sh" remove "$box"' EXIT
start=$(date +%s)
debs=$("$src/packaging/build-debs-chroot.sh" "$work/debs" --suite trixie) || fail "build-debs-chroot.sh failed"
echo "$debs"
[[ $(wc -l <<<"$debs") -eq 2 ]] || fail "expected two packages, got: $debs"
echo "built in $(($(date +%s) - start)) s"
"$src/packaging/chroot.sh" make trixie "$box" xvfb,xauth,fonts-dejavu-core
mkdir -p "$box/root/debs"
cp $debs "$box/root/debs/"
# apt inside reaches this machine's mirror through the chroot's own sources (mmdebstrap wrote them).
cp -L /etc/resolv.conf "$box/etc/resolv.conf" 2>/dev/null || true
"$src/packaging/chroot.sh" run "$box" "apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./root/debs/*.deb" \
  >"$work/apt.log" 2>&1 || { tail -n 30 "$work/apt.log"; fail "apt-get install of the packages failed in Debian 13"; }
out=$("$src/packaging/chroot.sh" run "$box" "
  streetgan-trainer version --json
  streetgan-trainer train --run-dir /tmp/run --preset tiny-32 --steps 20 --batch 8 --log-every 5 --sample-every 10
  export XDG_RUNTIME_DIR=/tmp/rt; mkdir -p /tmp/rt; chmod 700 /tmp/rt
  xvfb-run -a -s '-screen 0 1280x800x24' streetgan --explore --screenshot /root/explore.png --delay 15000
" 2>&1) || { echo "$out"; fail "the installed packages did not run in Debian 13"; }
grep -q '"libtorch":"2.6' <<<"$out" || fail "not built against Debian 13's LibTorch 2.6: $out"
grep -q '^status finished at step 20' <<<"$out" || fail "the tiny run did not finish: $out"
cp "$box/root/explore.png" "$work/"
"${STREETGAN_PYTHON:-/usr/bin/python3}" - "$work/explore.png" <<'EOF' || fail "the explorer's screenshot is blank ($work/explore.png)"
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
colours = len(set(im.getdata()))
print(f"{sys.argv[1]}: {im.size[0]}x{im.size[1]}, {colours} colours")
sys.exit(0 if colours >= 500 else 1)
EOF
echo "test_debs_chroot: ok in $(($(date +%s) - start)) s"
