#!/usr/bin/env bash
# The checks of other systems, together, before a release (as root; each in chroots made with
# mmdebstrap from this machine's Debian mirror). CI runs the first two with the suite; the third
# downloads and compiles too much for CI's 90 minutes (about 30 minutes with a cold compiler cache).
#   portable      the portable archive in Debian 13 (install, one-click tiny run, explorer, uninstall)
#                 and refused on Debian 11                      tests/packaging/test_portable_chroot.sh
#   bundle-floor  the GPU bundle built in Debian 11 trains in a bare Debian 11 against pip's torch
#                                                               tests/packaging/test_bundle_floor_chroot.sh
#   debs-trixie   the .debs built in Debian 13 against its Qt 6.8 and LibTorch 2.6, installed there
#                 with apt-get, a tiny run and the explorer     tests/packaging/test_debs_chroot.sh
#   host-build    the lean trainer built as the remote set-up builds it, by a user without root in
#                 a Debian 13 chroot with only g++, Python's venv and libcurl, against torch that
#                 pip installed there (HOST_BUILD_TORCH below: the oldest), and a tiny run trained
#                                                               tests/packaging/test_host_build_chroot.sh
#   bundles       the GPU bundle of every other torch the set-up offers one for (BUNDLE_TORCH below:
#                 2.9, 2.10, 2.12 and 2.15 besides bundle-floor's 2.11), each built in Debian 11 and
#                 trained with there against that torch's own pip libraries, as bundle-floor
#                 (about 20 minutes a version on 2 cores with a cold compiler cache); the tarballs
#                 are left in BUILD_DIR/release-check/bundles/out, to ship with --bundles
#   setup-e2e     the app's set-up path (e2e_ui_setup, offscreen) over the sshd of a Debian 13
#                 chroot without a CUDA toolkit, pip's torch in ~/.venv: the oldest torch (2.9) gets
#                 its bundle, the newest (2.15, its bundle not offered) a build on the host; each
#                 then trains a tiny run the app opens and plots
#                                                               tests/packaging/test_setup_e2e_chroot.sh
# Usage: packaging/release-check.sh [BUILD_DIR] [--only NAME]   (BUILD_DIR: the release build, default build/release)
# Prints each check's time and result; exits 1 when one failed. Work folders: BUILD_DIR/release-check/NAME.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD build=build/release only=
while [[ $# -gt 0 ]]; do
  case $1 in
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) build=$1; shift ;;
  esac
done
build=$(cd "$build" && pwd) || { echo "release-check.sh: no build folder $build: build the release preset first" >&2; exit 2; }
failed=0
check() { # check NAME COMMAND...
  local name=$1; shift
  [[ -z $only || $only == "$name" ]] || return 0
  local t0=$(date +%s) log=$build/release-check/$name.log
  mkdir -p "$build/release-check"
  if "$@" >"$log" 2>&1; then
    echo "release-check: $name ok in $(($(date +%s) - t0)) s: $(tail -n 1 "$log")"
  else
    failed=1
    echo "release-check: $name FAILED after $(($(date +%s) - t0)) s (log: $log):"
    tail -n 15 "$log" | sed 's/^/  /'
  fi
}
check portable tests/packaging/test_portable_chroot.sh "$src" "$build" "$build/release-check/portable"
check bundle-floor tests/packaging/test_bundle_floor_chroot.sh "$src" "$build/release-check/bundle-floor"
check debs-trixie tests/packaging/test_debs_chroot.sh "$src" "$build/release-check/debs-trixie"
# The oldest torch supported (setup-e2e builds against the newest, through the app).
HOST_BUILD_TORCH=(2.9.1)
host_build() {
  local v
  for v in "${HOST_BUILD_TORCH[@]}"; do
    tests/packaging/test_host_build_chroot.sh "$src" "$build/release-check/host-build/$v" "$v" || return 1
  done
}
check host-build host_build
# torch 2.11 is bundle-floor's (the cuda preset's); these are the others AWS's images carry and pip's
# newest (2.15: GCC 10's C++20 through cmake/TorchGcc10.cmake).
BUNDLE_TORCH=(2.9.1 2.10.0 2.12.1 2.15.0)
bundles() {
  local out=$build/release-check/bundles/out v tarball
  mkdir -p "$out"
  for v in "${BUNDLE_TORCH[@]}"; do
    packaging/gpu-bundle.sh "$build/release-check/bundles/$v" --torch "$v" >"$build/release-check/bundles/$v.log" 2>&1 ||
      { tail -n 20 "$build/release-check/bundles/$v.log"; echo "torch $v: the bundle did not build"; return 1; }
    tarball=$build/release-check/bundles/$v/$(basename "$(tail -n 1 "$build/release-check/bundles/$v.log")")
    cp "$tarball" "$out/"
    STREETGAN_TEST_BUNDLE=$tarball tests/packaging/test_bundle_floor_chroot.sh "$src" "$build/release-check/bundles/test-$v" "$v" || return 1
  done
  echo "bundles: $(cd "$out" && ls | tr '\n' ' ')"
}
check bundles bundles
# The oldest torch through its bundle (bundles' own, else built here), the newest through a build on
# the host: only the oldest's bundle is offered.
setup_e2e() {
  local offered=$build/release-check/setup-e2e-bundles tarball
  tarball=$(ls "$build"/release-check/bundles/out/streetgan-trainer-bundle-torch2.9-*.tar.gz 2>/dev/null | head -n 1)
  if [[ -z $tarball ]]; then
    mkdir -p "$offered"
    packaging/gpu-bundle.sh "$offered/build" --torch 2.9.1 >"$offered/build.log" 2>&1 ||
      { tail -n 20 "$offered/build.log"; echo "torch 2.9.1: the bundle did not build"; return 1; }
    tarball=$offered/build/$(basename "$(tail -n 1 "$offered/build.log")")
  fi
  rm -rf "$offered/only" && mkdir -p "$offered/only" && cp "$tarball" "$offered/only/"
  STREETGAN_TEST_BUNDLES=$offered/only tests/packaging/test_setup_e2e_chroot.sh "$src" "$build" "$build/release-check/setup-e2e" 2.9.1:bundle 2.15.0:source
}
check setup-e2e setup_e2e
exit $failed
