#!/usr/bin/env bash
# Renders the remote flow's docs/screenshots (08-remote-fresh-host, 09-remote-setup,
# 10-remote-run-finished) under Xvfb at 1280x800, as tools/screenshots.sh does for the others:
# a private sshd on a loopback port plays the GPU box "gpubox" (an alias of the tour's own ssh
# config), with no trainer on its PATH and no runs folder; the tour sets the trainer up there
# without root from a .deb that wraps this build's streetgan-trainer, starts a tiny run and waits
# for its end. Then the DL1 box (16-remote-dl1-find-tensorboard, 17-remote-dl1-watching): another
# sshd whose home holds the reference project's TensorBoard run under ~/runs and nothing of ours;
# the tour connects by alias "dl1", takes the folder the app found and watches the run.
# Nothing of ~/.ssh or the developer's settings is read or written.
# Usage: tools/screenshots-remote.sh [BUILD_DIR]   (default build/release; builds what it needs;
#        STREETGAN_TRAINER=PATH uses that trainer instead of the build's)
# Needs: xvfb-run, /usr/sbin/sshd (openssh-server), dpkg-deb.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
out="$here/docs/screenshots"
command -v xvfb-run >/dev/null || { echo "screenshots-remote.sh: xvfb-run is missing: packaging/install-deps.sh installs it (xvfb, xauth)" >&2; exit 1; }
[ -x /usr/sbin/sshd ] || { echo "screenshots-remote.sh: /usr/sbin/sshd is missing: apt-get install openssh-server" >&2; exit 1; }
# STREETGAN_TRAINER set: that trainer plays the host's (only the tour is built here).
if [ -n "${STREETGAN_TRAINER:-}" ]; then
  ninja -C "$build" remote_screenshot_tour >/dev/null
  trainer="$STREETGAN_TRAINER"
else
  ninja -C "$build" streetgan-trainer remote_screenshot_tour >/dev/null
  trainer="$build/app/streetgan-trainer"
fi
tour="$build/ui/remote_screenshot_tour"

tmp="$(mktemp -d)"
sshd_pids=()
cleanup() {
  for f in "$tmp"/remote-runs/*/trainer.pid; do if [ -f "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi; done
  for pid in "${sshd_pids[@]}"; do
    for p in $(ps -o pid= --ppid "$pid" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share" \
       XDG_CACHE_HOME="$tmp/home/.cache" XDG_RUNTIME_DIR="$tmp/runtime" STREETGAN_TRAINER="$trainer" SSH_AUTH_SOCK=
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# The GPU box: a private sshd (as bench/bench_remote.sh starts it); the DL1 box: another, whose
# sessions' home holds the reference project's TensorBoard run under ~/runs (no streetgan there).
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key" </dev/null
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id_user" </dev/null
cp "$tmp/id_user.pub" "$tmp/authorized_keys"
[ "$(id -u)" = 0 ] && mkdir -p /run/sshd
sshd_pids=()
start_sshd() {  # NAME HOME_LINE: starts it, sets $port, adds its alias and key
  local name=$1 env=$2
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  cat >"$tmp/sshd_$name" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/host_key
PidFile $tmp/sshd_$name.pid
AuthorizedKeysFile $tmp/authorized_keys
StrictModes no
UsePAM no
# No dotfile of the local user in the sessions (Debian bash reads ~/.bashrc under sshd below SHLVL 2)
SetEnv SHLVL=1 $env
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin yes
Subsystem sftp internal-sftp
UseDNS no
CFG
  /usr/sbin/sshd -D -e -f "$tmp/sshd_$name" 2>"$tmp/sshd_$name.log" &
  sshd_pids+=($!)
  for _ in $(seq 500); do grep -q "Server listening" "$tmp/sshd_$name.log" 2>/dev/null && break; sleep 0.02; done
  echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 "$tmp/host_key.pub")" >>"$tmp/known_hosts"
  printf 'Host %s\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n' \
    "$name" "$port" "$(id -un)" "$tmp/id_user" >>"$tmp/ssh_config"
}
start_sshd gpubox ""
dl1_home="$tmp/dl1-home"
reference="$build/test-tensorboard-runs/reference/dcgan-msls"
[ -d "$reference" ] || (cd "$build" && ctest -R tensorboard_runs_build >/dev/null) ||
  { echo "screenshots-remote.sh: no reference TensorBoard run in $build: run ctest -R tensorboard_runs_build there" >&2; exit 1; }
mkdir -p "$dl1_home/runs/dcgan-msls" "$dl1_home/data/msls"
cp -r "$reference/events" "$reference/checkpoints" "$dl1_home/runs/dcgan-msls/"
start_sshd dl1 "HOME=$dl1_home"

# The package the set-up installs: a streetgan-trainer .deb whose program runs this build's.
mkdir -p "$tmp/deb/usr/bin" "$tmp/deb/DEBIAN"
printf '#!/bin/sh\nexec %s "$@"\n' "$trainer" >"$tmp/deb/usr/bin/streetgan-trainer"
chmod 755 "$tmp/deb/usr/bin/streetgan-trainer"
printf 'Package: streetgan-trainer\nVersion: %s\nArchitecture: all\nMaintainer: StreetGAN <dev@example.org>\nDepends: libc6\nDescription: streetgan-trainer of this build\n' \
  "$("$trainer" --version | awk '{print $2}')" >"$tmp/deb/DEBIAN/control"
dpkg-deb --root-owner-group --build "$tmp/deb" "$tmp/streetgan-trainer.deb" >/dev/null

mkdir -p "$out"
xvfb-run -a -s "-screen 0 1280x800x24" "$tour" --out "$out" --ssh-config "$tmp/ssh_config" --known-hosts "$tmp/known_hosts" \
  --deb "$tmp/streetgan-trainer.deb" --prefix "$tmp/prefix" --root "$tmp/remote-runs"
echo "screenshots-remote.sh: wrote the remote flow's screenshots to $out" >&2
