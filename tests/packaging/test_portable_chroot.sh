#!/usr/bin/env bash
# The portable archive (packaging/portable.sh) on another system, for real: unpacked in a Debian 13
# chroot (glibc 2.41, Qt and LibTorch of its own or none: only what a desktop has, X under Xvfb,
# the OpenGL dispatch libraries, fonts), installed without root, the app started with the welcome
# page's one-click tiny run (it must train: events with steps, a checkpoint or sample), the
# explorer's demo rendered, uninstalled; and in a Debian 11 chroot (glibc 2.31) its launcher refuses
# in one line. Pictures of both app windows are left in WORK/ for a person to look at.
# Usage: test_portable_chroot.sh SOURCE_DIR BUILD_DIR WORK_DIR   (root; exit 77: no mmdebstrap or not root)
set -euo pipefail
src=$1 build=$2 work=$3
[[ $(id -u) -eq 0 ]] || { echo "SKIP: chroots need root"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap is not installed"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
chroot_sh=$src/packaging/chroot.sh
rm -rf "$work" && mkdir -p "$work"
trixie=$work/trixie bullseye=$work/bullseye
trap '"$chroot_sh" remove "$trixie"; "$chroot_sh" remove "$bullseye"' EXIT

start=$(date +%s)
archive=$("$src/packaging/portable.sh" "$work/out" --build "$build" | tail -n 1)
[[ -f $archive ]] || fail "portable.sh printed '$archive'"
echo "portable archive: $archive ($(du -m "$archive" | cut -f1) MB, made in $(($(date +%s) - start)) s)"

# Debian 13 as a desktop has it: X (Xvfb here), OpenGL's dispatch libraries, fontconfig and a font.
"$chroot_sh" make trixie "$trixie" xvfb,xauth,libgl1,libegl1,libopengl0,fontconfig,fonts-dejavu-core
mkdir -p "$trixie/root/dl"
cp "$archive" "$trixie/root/dl/"
name=$(basename "$archive" .tar.gz)
"$chroot_sh" run "$trixie" "cd /root/dl && tar -xzf $name.tar.gz && $name/install.sh" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "install.sh failed in Debian 13"; }
grep -q "^installed StreetGAN Studio" "$work/install.log" || fail "install.sh said: $(cat "$work/install.log")"
for f in /root/.local/bin/streetgan /root/.local/bin/streetgan-trainer /root/.local/share/applications/org.streetgan.Studio.desktop \
         /root/.local/share/icons/hicolor/scalable/apps/streetgan.svg /root/.local/share/icons/hicolor/64x64/apps/streetgan.png; do
  [[ -e $trixie$f || -L $trixie$f ]] || fail "install.sh did not make $f"
done
grep -q "^Exec=/root/.local/share/streetgan-portable/current/bin/streetgan" "$trixie/root/.local/share/applications/org.streetgan.Studio.desktop" ||
  fail "the menu entry does not start the installed app"

# The trainer runs against the LibTorch inside the archive.
json=$("$chroot_sh" run "$trixie" "/root/.local/bin/streetgan-trainer version --json")
grep -q '"library":"/root/.local/share/streetgan-portable/[^"]*/lib/libtorch_cpu' <<<"$json" || fail "version --json: $json"

# The app under Xvfb: the one-click tiny run. Its daemon goes on after the app quits (it is a
# detached run), so the test waits on its events, whatever the screenshot's moment was.
app_env="export XDG_RUNTIME_DIR=/tmp/rt; mkdir -p /tmp/rt; chmod 700 /tmp/rt"
"$chroot_sh" run "$trixie" "$app_env; xvfb-run -a -s '-screen 0 1280x800x24' /root/.local/bin/streetgan --tiny-run --screenshot /root/tiny.png --delay 30000" \
  >"$work/app-tiny.log" 2>&1 || { cat "$work/app-tiny.log"; fail "the app with --tiny-run failed in Debian 13"; }
runs=$trixie/root/.local/share/streetgan/runs
run=$(ls -d "$runs"/tiny-* 2>/dev/null | head -n 1)
[[ -n $run ]] || { cat "$work/app-tiny.log"; fail "no tiny-* run in $runs"; }
deadline=$(($(date +%s) + 600))
until grep -q '"step":[1-9]' "$run/events.jsonl" 2>/dev/null; do
  [[ $(date +%s) -lt $deadline ]] || { tail -n 20 "$run/trainer.log" 2>/dev/null; fail "the tiny run logged no step within 600 s"; }
  sleep 1
done
"$chroot_sh" run "$trixie" "/root/.local/bin/streetgan-trainer control /root/.local/share/streetgan/runs/$(basename "$run") stop" >/dev/null 2>&1 || true
deadline=$(($(date +%s) + 300))
while "$chroot_sh" run "$trixie" "/root/.local/bin/streetgan-trainer ls /root/.local/share/streetgan/runs --json" 2>/dev/null | grep -q '"state":"running"'; do
  [[ $(date +%s) -lt $deadline ]] || fail "the tiny run did not stop within 300 s"
  sleep 1
done

# The explorer's demo, rendered by the explore worker (the archive's trainer).
"$chroot_sh" run "$trixie" "$app_env; xvfb-run -a -s '-screen 0 1280x800x24' /root/.local/bin/streetgan --explore --screenshot /root/explore.png --delay 15000" \
  >"$work/app-explore.log" 2>&1 || { cat "$work/app-explore.log"; fail "the app with --explore failed in Debian 13"; }
cp "$trixie/root/tiny.png" "$trixie/root/explore.png" "$work/"
# The pictures are the app's window, not a blank one: many colours (the explorer's frame is a photo).
"${STREETGAN_PYTHON:-/usr/bin/python3}" - "$work/tiny.png" "$work/explore.png" <<'EOF' || fail "a screenshot is blank (see $work)"
import sys
from PIL import Image
for path, least in ((sys.argv[1], 8), (sys.argv[2], 500)):
    im = Image.open(path).convert("RGB")
    colours = len(set(im.getdata()))
    print(f"{path}: {im.size[0]}x{im.size[1]}, {colours} colours")
    if im.size[0] < 640 or colours < least:
        sys.exit(1)
EOF

# Uninstalled: the files are gone, the runs stay.
"$chroot_sh" run "$trixie" "/root/.local/share/streetgan-portable/current/uninstall.sh" >"$work/uninstall.log" 2>&1 ||
  { cat "$work/uninstall.log"; fail "uninstall.sh failed"; }
for f in /root/.local/bin/streetgan /root/.local/share/applications/org.streetgan.Studio.desktop /root/.local/share/streetgan-portable \
         /root/.local/share/icons/hicolor/scalable/apps/streetgan.svg; do
  [[ ! -e $trixie$f && ! -L $trixie$f ]] || fail "uninstall.sh left $f"
done
[[ -d $run ]] || fail "uninstall.sh removed the runs"

# Debian 11 (glibc 2.31): the launcher says what is missing, in one line, and runs nothing.
"$chroot_sh" make bullseye "$bullseye" ""
mkdir -p "$bullseye/root/dl"
cp "$archive" "$bullseye/root/dl/"
set +e
msg=$("$chroot_sh" run "$bullseye" "cd /root/dl && tar -xzf $name.tar.gz && $name/bin/streetgan-trainer --version" 2>&1)
code=$?
set -e
[[ $code -eq 1 ]] || fail "on Debian 11 the launcher exited $code: $msg"
[[ $(wc -l <<<"$msg") -eq 1 && $msg == *"needs glibc 2.35 or newer, this system has 2.31"* ]] || fail "on Debian 11: '$msg'"
echo "test_portable_chroot: ok in $(($(date +%s) - start)) s (Debian 13: installed, tiny run $(basename "$run") trained, explorer rendered, uninstalled; Debian 11: '$msg')"
