#!/usr/bin/env bash
# Chroots of other Debian releases for the checks of other systems (the portable archive on Debian
# 13, the launcher's refusal on Debian 11's glibc 2.31), made with mmdebstrap from the bullseye /
# bookworm / trixie suite of this machine's own Debian mirror (its apt sources), as root.
#   packaging/chroot.sh make SUITE DIR [PACKAGE,...]   a fresh DIR (the packages installed); the
#                                                      tarball is cached, so a second make is seconds
#   packaging/chroot.sh run DIR [--bind HOST:GUEST]... COMMAND...
#                                                      runs COMMAND (through bash -c) in DIR with
#                                                      /proc, /dev and the folders bound, unmounted afterwards
#   packaging/chroot.sh remove DIR                     unmounts what is left and removes DIR
#   packaging/chroot.sh mirror                         prints the Debian mirror of this machine's apt sources
#   packaging/chroot.sh download SUITE DEST [--source] PACKAGE...
#                                                      apt-get download (or source --download-only) of
#                                                      PACKAGE from SUITE into DEST, with no effect on
#                                                      this machine's apt state
# Cache: ${STREETGAN_CACHE_DIR:-~/.cache/streetgan}/chroots/SUITE-<packages hash>.tar
set -euo pipefail

mirror() {
  local m
  m=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  [[ -n $m ]] || m=$(sed -n 's/^deb \(http[^ ]*\/debian\)\/* .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
  [[ -n $m ]] || { echo "chroot.sh: no Debian mirror in /etc/apt/sources.list(.d)" >&2; exit 3; }
  echo "$m"
}

unmount_all() {
  local dir=$1 m
  # Deepest first; lazily, so that a process left inside does not keep it.
  for m in $(awk -v d="$(cd "$dir" && pwd)" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

# Removes DIR only when nothing is mounted below it any more (a bind-mounted /dev must never be
# recursed into), and without crossing into another file system.
remove_dir() {
  local dir=$1
  unmount_all "$dir"
  if awk -v d="$(cd "$dir" && pwd)" 'index($2, d "/") == 1 {found = 1} END {exit !found}' /proc/mounts; then
    echo "chroot.sh: something is still mounted under $dir: not removing it" >&2
    exit 3
  fi
  rm -rf --one-file-system "$dir"
}

cmd=${1:-}
case $cmd in
  make)
    suite=${2:?usage: packaging/chroot.sh make SUITE DIR [PACKAGE,...]} dir=${3:?usage: packaging/chroot.sh make SUITE DIR [PACKAGE,...]} pkgs=${4:-}
    [[ $(id -u) -eq 0 ]] || { echo "chroot.sh: making a chroot needs root" >&2; exit 2; }
    command -v mmdebstrap >/dev/null || { echo "chroot.sh: mmdebstrap is missing: apt install mmdebstrap (packaging/install-deps.sh)" >&2; exit 2; }
    cache=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/chroots
    mkdir -p "$cache"
    tarball=$cache/$suite-$(printf '%s' "$pkgs" | sha256sum | cut -c1-12).tar
    if [[ ! -s $tarball ]]; then
      echo "chroot.sh: making a $suite chroot${pkgs:+ with $pkgs} (cached as $tarball)" >&2
      mmdebstrap --quiet --variant=apt --format=tar ${pkgs:+--include="$pkgs"} "$suite" "$tarball.tmp.$$" "deb $(mirror) $suite main" ||
        { rm -f "$tarball.tmp.$$"; echo "chroot.sh: mmdebstrap $suite failed (above)" >&2; exit 3; }
      mv -f "$tarball.tmp.$$" "$tarball"
    fi
    [[ ! -e $dir ]] || remove_dir "$dir"
    mkdir -p "$dir"
    tar -xf "$tarball" -C "$dir"
    ;;
  run)
    dir=${2:?usage: packaging/chroot.sh run DIR [--bind HOST:GUEST]... COMMAND...}
    shift 2
    [[ -x $dir/bin/sh ]] || { echo "chroot.sh: $dir is not a chroot (no bin/sh): make it first" >&2; exit 2; }
    trap 'unmount_all "$dir"' EXIT
    mkdir -p "$dir/proc" "$dir/dev"
    mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
    mountpoint -q "$dir/dev" || mount --bind /dev "$dir/dev"
    while [[ ${1:-} == --bind ]]; do
      host=${2%%:*} guest=${2#*:}
      [[ -d $host ]] || { echo "chroot.sh: --bind $2: $host is not a folder" >&2; exit 2; }
      mkdir -p "$dir$guest"
      mountpoint -q "$dir$guest" || mount --bind "$host" "$dir$guest"
      shift 2
    done
    status=0
    chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 /bin/bash -c "$*" || status=$?
    exit $status
    ;;
  mirror)
    mirror
    ;;
  download)
    suite=${2:?usage: packaging/chroot.sh download SUITE DEST [--source] PACKAGE...} dest=${3:?usage: packaging/chroot.sh download SUITE DEST [--source] PACKAGE...}
    shift 3
    kind=deb what=download
    if [[ ${1:-} == --source ]]; then kind=deb-src what=source; shift; fi
    [[ $# -gt 0 ]] || { echo "chroot.sh: download: name the packages" >&2; exit 2; }
    apt=$(mktemp -d)
    trap 'rm -rf "$apt"' EXIT
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$dest"
    echo "$kind $(mirror) $suite main" >"$apt/sources.list"
    : >"$apt/status"  # no installed packages: apt's candidate is SUITE's, not this machine's version
    opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$apt/lists"
          -o "Dir::State::status=$apt/status" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1 -o APT::Architecture=amd64
          -o APT::Sandbox::User=root)
    apt-get "${opts[@]}" -q update >/dev/null || { echo "chroot.sh: apt-get update of $suite from $(mirror) failed: check the network" >&2; exit 3; }
    if [[ $what == source ]]; then
      (cd "$dest" && apt-get "${opts[@]}" -q source --download-only "$@" >/dev/null)
    else
      (cd "$dest" && apt-get "${opts[@]}" -q download "$@" >/dev/null)
    fi || { echo "chroot.sh: cannot download $* ($suite)" >&2; exit 3; }
    ;;
  remove)
    dir=${2:?usage: packaging/chroot.sh remove DIR}
    [[ -e $dir ]] || exit 0
    remove_dir "$dir"
    ;;
  *)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
