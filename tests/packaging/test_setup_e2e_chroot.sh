#!/usr/bin/env bash
# The app's set-up path end to end on another system (issue 40): a Debian 13 chroot with its own sshd
# on a loopback port, a user without root whose ~/.venv holds torch from pip's index, and the app's
# own code on this machine (the e2e_ui_setup program: MainWindow offscreen) connecting to it. For
# each torch version given, the set-up dialog surveys the host and chooses by itself (a prebuilt
# bundle where the app has one for that torch, else a build on the host from the source archive),
# runs to its end, and a tiny run started there is opened, plotted and finishes. The host has no CUDA
# toolkit: a build there against pip's CUDA torch needs nothing but g++ (cmake/TorchPackage.cmake).
# The bundles offered: STREETGAN_TEST_BUNDLES's, else the 2.9 one, built into WORK_DIR
# (packaging/gpu-bundle-floor.sh --torch 2.9.1); the source archive is made from this tree
# (packaging/source-archive.sh).
# Usage: test_setup_e2e_chroot.sh SOURCE_DIR BUILD_DIR WORK_DIR [TORCH:EXPECT ...]
#   default 2.9.1:bundle 2.15.0:source, the oldest and newest torch (EXPECT: bundle or source, what
#   the survey must choose);
#   BUILD_DIR: the release build (its tests/ui/e2e_ui_setup). Root; exit 77: not root, no
#   mmdebstrap. STREETGAN_TEST_BUNDLES=DIR: offer those bundles instead.
#   STREETGAN_TEST_CCACHE=1 puts ccache into the host's PATH for its build (working on this test only).
set -euo pipefail
src=$1 build=$2 work=$3
shift 3
cases=("$@")
[[ ${#cases[@]} -gt 0 ]] || cases=(2.9.1:bundle 2.15.0:source)
[[ $(id -u) -eq 0 ]] || { echo "SKIP: chroots need root"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap is not installed"; exit 77; }
program=$build/tests/ui/e2e_ui_setup
[[ -x $program ]] || { echo "FAIL: $program is missing: build the release preset's target e2e_ui_setup" >&2; exit 1; }
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
box=$work/trixie
sshd_pid=
cleanup() {
  # sshd by its pid file (killing chroot.sh's shell would leave it running), then its chroot.sh.
  [[ ! -f $box/run/sshd-e2e.pid ]] || kill "$(cat "$box/run/sshd-e2e.pid")" 2>/dev/null || true
  [[ -z $sshd_pid ]] || wait "$sshd_pid" 2>/dev/null || true
  # STREETGAN_TEST_KEEP=1 leaves the chroot for a look after a failure (remove it with chroot.sh remove).
  [[ ${STREETGAN_TEST_KEEP:-0} == 1 ]] || "$src/packaging/chroot.sh" remove "$box"
}
trap cleanup EXIT
start=$(date +%s)

# What the app offers: the bundles and this tree's source archive.
bundles=${STREETGAN_TEST_BUNDLES:-}
if [[ -z $bundles ]]; then
  bundles=$work/bundles
  "$src/packaging/gpu-bundle-floor.sh" "$bundles" --torch 2.9.1 >"$work/bundle.log" 2>&1 || { tail -n 30 "$work/bundle.log"; fail "gpu-bundle-floor.sh failed"; }
  rm -rf "$bundles/bundle"
fi
echo "bundles offered: $(cd "$bundles" && ls | tr '\n' ' ')"
archive=$("$src/packaging/source-archive.sh" "$work/streetgan-source.tar.gz" "0.0.0-e2e" | tail -n 1)

packages=openssh-server,g++,gcc,python3-venv,libcurl4t64,ca-certificates
[[ ${STREETGAN_TEST_CCACHE:-0} != 1 ]] || packages+=,ccache
"$src/packaging/chroot.sh" make trixie "$box" "$packages"
mkdir -p "$box/etc/ssl/certs" "$box/home/builder/.ssh" "$box/run/sshd"
cp -L /etc/ssl/certs/ca-certificates.crt "$box/etc/ssl/certs/ca-certificates.crt"
echo 'builder:x:1000:1000::/home/builder:/bin/bash' >>"$box/etc/passwd"
echo 'builder:x:1000:' >>"$box/etc/group"
echo 'builder:*:20000:0:99999:7:::' >>"$box/etc/shadow"
ssh-keygen -q -t ed25519 -N '' -f "$work/id_builder"
cp "$work/id_builder.pub" "$box/home/builder/.ssh/authorized_keys"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'Port %s\nListenAddress 127.0.0.1\nHostKey /etc/ssh/ssh_host_ed25519_key\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPidFile /run/sshd-e2e.pid\nSubsystem sftp internal-sftp\n' \
  "$port" >"$box/etc/ssh/sshd_e2e"
pip_cache=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/pip
ccache_dir=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/ccache-trixie
mkdir -p "$pip_cache" "$ccache_dir"
binds=(--bind "$pip_cache:/pip-cache" --bind "$ccache_dir:/ccache")
"$src/packaging/chroot.sh" run "$box" "${binds[@]}" "ssh-keygen -q -A && chown -R builder:builder /home/builder && chmod 700 /home/builder/.ssh && chmod -R a+rwX /ccache /pip-cache"
if [[ ${STREETGAN_TEST_CCACHE:-0} == 1 ]]; then
  # The set-up's build runs in the user's login environment: ccache first on its PATH.
  printf 'export PATH=/usr/lib/ccache:$PATH CCACHE_DIR=/ccache CCACHE_BASEDIR=/home/builder\n' >>"$box/home/builder/.profile"
  printf 'export PATH=/usr/lib/ccache:$PATH CCACHE_DIR=/ccache CCACHE_BASEDIR=/home/builder\n' >"$box/home/builder/.bashrc"
fi
# From here on the chroot is used only through its sshd: the chroot.sh run that started it keeps
# /proc, /dev and the binds mounted (another one would unmount them all when it ends, and without
# /proc the loader cannot resolve $ORIGIN in a bundle's RUNPATH).
"$src/packaging/chroot.sh" run "$box" "${binds[@]}" "exec /usr/sbin/sshd -D -e -f /etc/ssh/sshd_e2e" >"$work/sshd.log" 2>&1 &
sshd_pid=$!
deadline=$(($(date +%s) + 60))
on_host() { ssh -q -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i "$work/id_builder" -p "$port" builder@127.0.0.1 "$@"; }
until on_host true; do
  [[ $(date +%s) -lt $deadline ]] || { cat "$work/sshd.log"; fail "the chroot's sshd does not answer on port $port"; }
  sleep 1
done

for c in "${cases[@]}"; do
  torch=${c%%:*} expect=${c##*:}
  t0=$(date +%s)
  # A fresh host for each: no trainer installed, ~/.venv with this torch, installed by the user as
  # pip's instructions say (pip's index; the wheels cached between runs).
  on_host "rm -rf ~/.local ~/.venv ~/runs ~/src && python3 -m venv ~/.venv &&
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt ~/.venv/bin/pip install -q --cache-dir /pip-cache torch==$torch" >"$work/pip-$torch.log" 2>&1 ||
    { tail -n 20 "$work/pip-$torch.log"; fail "pip could not install torch $torch"; }
  echo "torch $torch: pip install $(($(date +%s) - t0)) s"
  t0=$(date +%s)
  QTEST_FUNCTION_TIMEOUT=$((5400 * 1000 * 2)) QT_QPA_PLATFORM=offscreen SSH_AUTH_SOCK= STREETGAN_E2E_PORT=$port STREETGAN_E2E_USER=builder STREETGAN_E2E_KEY=$work/id_builder \
    STREETGAN_E2E_EXPECT=$expect STREETGAN_E2E_TORCH=$torch STREETGAN_E2E_SETUP_S=5400 STREETGAN_E2E_SCREENSHOT=$work/app-$torch.png \
    STREETGAN_TRAINER_BUNDLES=$bundles STREETGAN_SOURCE_TARBALL=$archive \
    "$program" >"$work/app-$torch.log" 2>&1 || { tail -n 60 "$work/app-$torch.log"; fail "torch $torch: the app's set-up path failed (log: $work/app-$torch.log)"; }
  grep -E 'survey:|set-up:|trainer:|tiny run:' "$work/app-$torch.log" | sed 's/^QINFO *: *[^ ]* //'
  # This host has no CUDA toolkit: a build there says so and still builds against the CUDA torch.
  [[ $expect != source ]] || grep -q "no CUDA toolkit needed" "$work/app-$torch.log" ||
    fail "torch $torch: the survey did not say the build needs no CUDA toolkit (log: $work/app-$torch.log)"
  echo "torch $torch ($expect): set up and a tiny run plotted in $(($(date +%s) - t0)) s"
done
echo "test_setup_e2e_chroot: ok in $(($(date +%s) - start)) s"
