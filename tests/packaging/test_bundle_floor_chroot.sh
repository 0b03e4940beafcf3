#!/usr/bin/env bash
# The GPU bundle for older systems (packaging/gpu-bundle-floor.sh: built in a Debian 11 chroot) at
# run time where its floor is: in a bare Debian 11 chroot (glibc 2.31, GCC 10's libstdc++; no
# compiler, no -dev package, no Python torch: its Python 3.9 is too old for torch 2.9+), against pip's
# torch 2.11 libraries unpacked as packaging/fetch-torch.sh lays them out (STREETGAN_TORCH_SITE), it
# reports that torch and trains a tiny run to its checkpoint. Its floor is checked with
# packaging/check-floor.sh: no file above Debian 11's glibc 2.31 and GLIBCXX 3.4.28.
# Usage: test_bundle_floor_chroot.sh SOURCE_DIR WORK_DIR   (root; exit 77: no mmdebstrap, not root, or no CUDA toolkit)
set -euo pipefail
src=$1 work=$2
[[ $(id -u) -eq 0 ]] || { echo "SKIP: chroots need root"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap is not installed"; exit 77; }
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
[[ -x $cuda/bin/nvcc ]] || { echo "SKIP: no CUDA toolkit at $cuda"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
box=$work/bullseye
trap '"$src/packaging/chroot.sh" remove "$box"' EXIT

start=$(date +%s)
"$src/packaging/gpu-bundle-floor.sh" "$work/out" >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; fail "gpu-bundle-floor.sh failed"; }
tarball=$(tail -n 1 "$work/build.log")
tarball=$work/out/$(basename "$tarball")
[[ -f $tarball ]] || fail "no bundle: $(tail -n 3 "$work/build.log")"
echo "bundle: $(basename "$tarball"), $(du -k "$tarball" | cut -f1) KB, built in $(($(date +%s) - start)) s"
"$src/packaging/check-floor.sh" "$work/out/bundle" --glibc 2.31 --glibcxx 3.4.28 || fail "the bundle needs more than Debian 11 has (above)"

"$src/packaging/chroot.sh" make bullseye "$box" ""
mkdir -p "$box/opt/bundle"
tar -xzf "$tarball" -C "$box/opt/bundle"
deps=$src/build/cuda/_deps
out=$("$src/packaging/chroot.sh" run "$box" --bind "$deps:/opt/torch-site" --bind "$cuda:$cuda" "
  export STREETGAN_TORCH_SITE=/opt/torch-site
  ldd --version | head -n 1
  /opt/bundle/streetgan-trainer-bundle/run version --json
  /opt/bundle/streetgan-trainer-bundle/run train --run-dir /tmp/run --preset tiny-32 --steps 20 --batch 8 --log-every 5 --sample-every 10
  ls /tmp/run/checkpoints
" 2>&1) || { echo "$out"; fail "the bundle did not train in Debian 11"; }
grep -q 'GLIBC 2.31' <<<"$out" || fail "not Debian 11's glibc: $out"
grep -q '"library":"/opt/torch-site/torch/lib/libtorch_cpu.so","version":"2.11.0' <<<"$out" || fail "version --json: $out"
grep -q '^status finished at step 20' <<<"$out" || fail "the tiny run did not finish: $out"
grep -q '^checkpoint_0.pt' <<<"$out" || fail "no checkpoint: $out"
echo "test_bundle_floor_chroot: ok in $(($(date +%s) - start)) s ($("$src/packaging/check-floor.sh" "$work/out/bundle" | tr '\n' ' '))"
