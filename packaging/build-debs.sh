#!/usr/bin/env bash
# Builds the two Debian packages, streetgan (desktop app) and streetgan-trainer (headless trainer),
# into OUTDIR and prints their paths, one per line (the last two lines of the output).
# It uses the release build (build/release, the README's), configuring and building it as needed:
# an existing build is reused, so after `packaging/check.sh` this takes a minute or two.
# Usage: packaging/build-debs.sh OUTDIR [BUILD_DIR]
# Install them with: sudo apt install ./streetgan_*.deb ./streetgan-trainer_*.deb
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: packaging/build-debs.sh OUTDIR [BUILD_DIR]" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
cd "$(dirname "$0")/.."
build=${2:-build/release}
for tool in cpack dpkg-shlibdeps dpkg-deb; do
  if ! command -v "$tool" >/dev/null; then
    case $tool in
      cpack) pkg=cmake ;; dpkg-shlibdeps) pkg=dpkg-dev ;; *) pkg=$tool ;;
    esac
    echo "build-debs.sh: $tool not found: apt install $pkg" >&2
    exit 2
  fi
done
if [[ $build == build/release ]]; then
  cmake --preset release >/dev/null
else
  cmake -S . -B "$build" >/dev/null
fi
# The version is re-read from git at configure time (above): a package never carries a stale one.
cmake --build "$build" --target streetgan streetgan-trainer streetgan_package_files streetgan_studio_package_files
work=$(mktemp -d "${TMPDIR:-/tmp}/streetgan-debs-XXXXXX")
trap 'rm -rf "$work"' EXIT
# cpack runs dpkg-shlibdeps on every ELF file and strips the binaries (CPACK_STRIP_FILES).
pack() { # pack COMPONENT: one package into $work/COMPONENT
  (cd "$build" && cpack -G DEB -D CPACK_COMPONENTS_ALL="$1" -B "$work/$1" >"$work/$1.log" 2>&1) ||
    { cat "$work/$1.log" >&2; echo "build-debs.sh: cpack of $1 failed (log above)" >&2; exit 1; }
  shopt -s nullglob
  local debs=("$work/$1"/*.deb)
  [[ ${#debs[@]} -eq 1 ]] || { cat "$work/$1.log" >&2; echo "build-debs.sh: cpack made ${#debs[@]} packages for $1, expected 1" >&2; exit 1; }
  packed=${debs[0]}
}
pack trainer
trainer_deb=$packed
# The app's package carries what it uploads to set up a remote host: this trainer package, and the
# source (packaging/source-archive.sh: with the vendored libraries) for hosts that build it.
mkdir -p "$build/remote"
cp -f "$trainer_deb" "$build/remote/streetgan-trainer.deb"
packaging/source-archive.sh "$build/remote/streetgan-source.tar.gz" "$(dpkg-deb -f "$trainer_deb" Version)" >/dev/null
pack studio
studio_deb=$packed
mv -f "$trainer_deb" "$studio_deb" "$out/"
echo "$out/$(basename "$trainer_deb")"
echo "$out/$(basename "$studio_deb")"
