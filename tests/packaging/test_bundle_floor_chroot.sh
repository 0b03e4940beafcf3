#!/usr/bin/env bash
# The GPU bundle for older systems (packaging/gpu-bundle-floor.sh: built in a Debian 11 chroot with
# the glibc 2.28 floor) at run time: in a bare Debian 11 chroot (glibc 2.31, GCC 10's libstdc++; no
# compiler, no -dev package, no Python torch: its Python 3.9 is too old for torch 2.9+), against pip's
# torch libraries unpacked as packaging/fetch-torch.sh lays them out (STREETGAN_TORCH_SITE), it
# reports that torch and trains a tiny run to its checkpoint; then once more as on a host whose
# libstdc++ is older than the trainer needs (RHEL/Rocky 8: a fake ldconfig names a libstdc++ without
# that GLIBCXX version), where `run` loads the libstdc++ the bundle carries (LD_DEBUG shows which).
# Its floor is checked with packaging/check-floor.sh: no file above glibc 2.28, and the GLIBCXX our
# programs need is one the carried libstdc++ defines.
# Usage: test_bundle_floor_chroot.sh SOURCE_DIR WORK_DIR [TORCH_VERSION]
#   (root; exit 77: no mmdebstrap, not root, or no CUDA toolkit; TORCH_VERSION: default the cuda
#   preset's, packaging/fetch-torch.sh's; another, e.g. 2.9.1, is built with --torch;
#   STREETGAN_TEST_BUNDLE=TARBALL tests that bundle instead of building one)
set -euo pipefail
src=$1 work=$2
default=$(sed -n 's/^TORCH_VERSION=//p' "$src/packaging/fetch-torch.sh")
torch=${3:-$default}
[[ $(id -u) -eq 0 ]] || { echo "SKIP: chroots need root"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap is not installed"; exit 77; }
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
[[ -x $cuda/bin/nvcc ]] || { echo "SKIP: no CUDA toolkit at $cuda"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
box=$work/bullseye
trap '"$src/packaging/chroot.sh" remove "$box"' EXIT

start=$(date +%s)
if [[ -n ${STREETGAN_TEST_BUNDLE:-} ]]; then
  # A bundle made before (packaging/release-check.sh builds each torch version's once): unpacked
  # here as the build would have left it.
  mkdir -p "$work/out/bundle"
  tar -xzf "$STREETGAN_TEST_BUNDLE" -C "$work/out/bundle" --strip-components=1
  cp "$STREETGAN_TEST_BUNDLE" "$work/out/"
  tarball=$work/out/$(basename "$STREETGAN_TEST_BUNDLE")
else
  "$src/packaging/gpu-bundle-floor.sh" "$work/out" --torch "$torch" >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; fail "gpu-bundle-floor.sh failed"; }
  tarball=$(tail -n 1 "$work/build.log")
  tarball=$work/out/$(basename "$tarball")
fi
[[ -f $tarball ]] || fail "no bundle: $(tail -n 3 "$work/build.log")"
echo "bundle: $(basename "$tarball"), $(du -k "$tarball" | cut -f1) KB, built in $(($(date +%s) - start)) s"
"$src/packaging/check-floor.sh" "$work/out/bundle" --glibc 2.28 || fail "the bundle needs a newer glibc than 2.28 (above)"
need=$(cat "$work/out/bundle/lib/cxx/needs" 2>/dev/null) || fail "the bundle carries no libstdc++ (lib/cxx/needs)"
programs=$("$src/packaging/check-floor.sh" "$work/out/bundle/streetgan-trainer-torch" | sed -n 's/^GLIBCXX \([0-9.]*\).*/GLIBCXX_\1/p')
[[ $need == "$programs" ]] || fail "lib/cxx/needs says $need, the trainer needs $programs"
grep -qa "$need" "$work/out/bundle/lib/cxx/libstdc++.so.6" || fail "the carried libstdc++ does not define $need"

"$src/packaging/chroot.sh" make bullseye "$box" ""
mkdir -p "$box/opt/bundle"
tar -xzf "$tarball" -C "$box/opt/bundle"
if [[ $torch == "$default" ]]; then deps=$src/build/cuda/_deps; else deps=$src/build/torch-$torch/_deps; fi
# A fake ldconfig (first on PATH) that names an "old" libstdc++: a file without $need, as GCC 8's is.
mkdir -p "$box/opt/old-host"
# Its answer is long after the libstdc++ line, as a real cache is: a reader that leaves early kills it
# with SIGPIPE (run once died of that, status 141, under pipefail).
printf '#!/bin/sh\necho "\tlibstdc++.so.6 (libc6,x86-64) => /opt/old-host/libstdc++.so.6"\nseq 1 200000 | sed "s/^/\tlibfiller/"\n' >"$box/opt/old-host/ldconfig"
chmod +x "$box/opt/old-host/ldconfig"
echo 'GLIBCXX_3.4.25' >"$box/opt/old-host/libstdc++.so.6"
out=$("$src/packaging/chroot.sh" run "$box" --bind "$deps:/opt/torch-site" --bind "$cuda:$cuda" "
  export STREETGAN_TORCH_SITE=/opt/torch-site
  b=/opt/bundle/streetgan-trainer-bundle
  ldd --version | head -n 1
  \$b/run version --json
  LD_DEBUG=libs \$b/run version 2>&1 | grep -o 'calling init: [^ ]*libstdc++.so.6' | sed 's/^/host libstdc++: /'
  \$b/run train --run-dir /tmp/run --preset tiny-32 --steps 20 --batch 8 --log-every 5 --sample-every 10 || echo \"train exited with status \$?\"
  ls /tmp/run/checkpoints
  \$b/run data synth --count 16 --out /tmp/photos >/dev/null && tar -cf /tmp/photos.tar -C /tmp/photos synthetic
  \$b/run data stats /tmp/photos.tar | sed -n 's/^total /photos tar: /p'
  \$b/run train --run-dir /tmp/run3 --data /tmp/photos/synthetic --preset tiny-32 --steps 4 --batch 8 --log-every 2 --sample-every 0 | sed 's/^/photos: /'
  PATH=/opt/old-host:\$PATH LD_DEBUG=libs \$b/run version 2>&1 | grep -o 'calling init: [^ ]*libstdc++.so.6' | sed 's/^/old host libstdc++: /'
  PATH=/opt/old-host:\$PATH \$b/run train --run-dir /tmp/run2 --preset tiny-32 --steps 10 --batch 8 --log-every 5 --sample-every 10 | sed 's/^/old host: /'
" 2>&1) || { echo "$out"; fail "the bundle did not train in Debian 11"; }
grep -q 'GLIBC 2.31' <<<"$out" || fail "not Debian 11's glibc: $out"
grep -q "\"library\":\"/opt/torch-site/torch/lib/libtorch_cpu.so\",\"version\":\"$torch" <<<"$out" || fail "version --json: $out"
grep -q '^status finished at step 20' <<<"$out" || fail "the tiny run did not finish: $out"
grep -q '^checkpoint_0.pt' <<<"$out" || fail "no checkpoint: $out"
grep -Eq '^photos tar: +16 ' <<<"$out" || fail "the bundle did not list a tar of JPEGs: $out"
grep -q '^photos: status finished at step 4' <<<"$out" || fail "the bundle did not train from a JPEG folder: $out"
grep -q '^host libstdc++: calling init: /usr/lib/x86_64-linux-gnu/libstdc++.so.6' <<<"$out" || fail "Debian 11's own libstdc++ (new enough) was not the one used: $out"
grep -q '^old host libstdc++: calling init: /opt/bundle/streetgan-trainer-bundle/lib/cxx/libstdc++.so.6' <<<"$out" || fail "the carried libstdc++ was not used for an old one: $out"
grep -q '^old host: status finished at step 10' <<<"$out" || fail "the tiny run with the carried libstdc++ did not finish: $out"
echo "test_bundle_floor_chroot: torch $torch ok in $(($(date +%s) - start)) s ($("$src/packaging/check-floor.sh" "$work/out/bundle" | tr '\n' ' '))"
