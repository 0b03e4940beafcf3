#!/usr/bin/env bash
# A host build of the lean trainer as the remote set-up makes it (RemoteTrainerSetup::buildFromSource
# runs packaging/build-trainer.sh in the unpacked source archive), for real: a Debian 13 chroot with
# a C/C++ compiler, Python's venv module and libcurl's runtime library, and no -dev package of any
# library the trainer uses (no CMake, no Ninja either); pip installs torch (from pip's index, with
# every CUDA library wheel it pins) into a venv; a user without root unpacks the source archive
# (packaging/source-archive.sh: with third_party/) and builds. The trainer must report that torch and
# its lean features, train a tiny run to its checkpoint, and refuse `remote` in one line.
# The CUDA toolkit's nvcc is bound in: torch's own CMake files ask for it for a CUDA build of torch.
# Usage: test_host_build_chroot.sh SOURCE_DIR WORK_DIR [TORCH_VERSION]   (default 2.11.0; root;
#   exit 77: not root, no mmdebstrap or no CUDA toolkit). STREETGAN_TEST_CCACHE=1 adds ccache to the
#   chroot and keeps its cache in ~/.cache/streetgan/ccache-trixie (for working on this test only).
set -euo pipefail
src=$1 work=$2 torch=${3:-2.11.0}
[[ $(id -u) -eq 0 ]] || { echo "SKIP: chroots need root"; exit 77; }
command -v mmdebstrap >/dev/null || { echo "SKIP: mmdebstrap is not installed"; exit 77; }
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
[[ -x $cuda/bin/nvcc ]] || { echo "SKIP: no CUDA toolkit at $cuda"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
box=$work/trixie
trap '"$src/packaging/chroot.sh" remove "$box"' EXIT
start=$(date +%s)

archive=$("$src/packaging/source-archive.sh" "$work/streetgan-source.tar.gz" "0.0.0-host-build-test" | tail -n 1)
echo "source archive: $(du -k "$archive" | cut -f1) KB"
packages=g++,gcc,python3-venv,libcurl4t64,ca-certificates
[[ ${STREETGAN_TEST_CCACHE:-0} != 1 ]] || packages+=,ccache
"$src/packaging/chroot.sh" make trixie "$box" "$packages"
# Nothing a library of the trainer would need to compile against: only the C library's, the
# compiler's own and the kernel's headers (and Python's, which the venv does not use).
devs=$("$src/packaging/chroot.sh" run "$box" "dpkg-query -W -f '\${Package}\n' | grep -- '-dev\$' | grep -v -E '^(libc6|libgcc-[0-9]+|libstdc\+\+-[0-9]+|linux-libc|libcrypt|libpython3[.0-9]*|python3[.0-9]*|libexpat1|zlib1g|libisl|libmpc|libmpfr|libgmp|rpcsvc-proto|libtirpc|libnsl)-dev\$' || true")
[[ -z $devs ]] || fail "the chroot has -dev packages a host build must not need: $devs"
for tool in cmake ninja pkg-config; do
  "$src/packaging/chroot.sh" run "$box" "! command -v $tool" >/dev/null || fail "the chroot has $tool"
done
mkdir -p "$box/usr/local" "$box/etc/ssl/certs" "$box/home/builder"
ln -sfn "$cuda" "$box/usr/local/cuda"
# pip inside trusts what this machine trusts (a proxy's certificate authority, where there is one).
cp -L /etc/ssl/certs/ca-certificates.crt "$box/etc/ssl/certs/ca-certificates.crt"
cp "$archive" "$box/home/builder/"
pip_cache=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/pip
ccache_dir=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/ccache-trixie
mkdir -p "$pip_cache" "$ccache_dir"
binds=(--bind "$cuda:$cuda" --bind "$pip_cache:/pip-cache" --bind "$ccache_dir:/ccache")

# torch into a venv, as a user installs it (pip's index; the wheels are cached between runs).
t0=$(date +%s)
"$src/packaging/chroot.sh" run "$box" "${binds[@]}" "
  python3 -m venv /opt/torch && PIP_CERT=/etc/ssl/certs/ca-certificates.crt /opt/torch/bin/pip install -q --cache-dir /pip-cache torch==$torch &&
  chmod -R a+rX /pip-cache" >"$work/pip.log" 2>&1 || { tail -n 20 "$work/pip.log"; fail "pip could not install torch $torch"; }
echo "pip install torch==$torch: $(($(date +%s) - t0)) s"

# The build, as a user without root, as the set-up runs it: unpack, then build-trainer.sh. (setpriv,
# not su: no PAM, no password database beyond the passwd line.)
as_builder_def="as_builder='setpriv --reuid=1000 --regid=1000 --clear-groups env HOME=/home/builder USER=builder LOGNAME=builder bash -c'"
t0=$(date +%s)
launcher=
[[ ${STREETGAN_TEST_CCACHE:-0} != 1 ]] || launcher="export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_DIR=/ccache CCACHE_BASEDIR=/home/builder;"
"$src/packaging/chroot.sh" run "$box" "${binds[@]}" "
  $as_builder_def
  grep -q ^builder: /etc/passwd || { echo 'builder:x:1000:1000::/home/builder:/bin/bash' >>/etc/passwd; echo 'builder:x:1000:' >>/etc/group; }
  chown -R builder /home/builder && chmod -R a+rwX /ccache
  \$as_builder '$launcher cd ~ && tar -xzf streetgan-source.tar.gz && cd streetgan-source &&
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt bash packaging/build-trainer.sh --python /opt/torch/bin/python --build-dir ~/build'
" >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; fail "the host build failed in Debian 13"; }
echo "host build: $(($(date +%s) - t0)) s"
grep -q 'installing them from pip' "$work/build.log" || fail "CMake and Ninja did not come from pip: $(grep build-trainer "$work/build.log")"
grep -q 'S3 through .*libcurl.so' "$work/build.log" || fail "the build did not link the host's libcurl: $(grep -i vendored "$work/build.log")"

out=$("$src/packaging/chroot.sh" run "$box" "${binds[@]}" "
  $as_builder_def
  t=/home/builder/build/app/streetgan-trainer
  \$as_builder \"\$t version --json\"
  \$as_builder \"cd /tmp && \$t train --run-dir /tmp/run --preset tiny-32 --steps 20 --batch 8 --log-every 5 --sample-every 10\" || echo \"train exited with status \$?\"
  ls /tmp/run/checkpoints
  \$as_builder \"\$t remote --host nowhere ls /tmp\" 2>&1 | sed 's/^/remote: /'
" 2>&1) || { echo "$out"; fail "the built trainer did not run"; }
grep -q "\"library\":\"[^\"]*libtorch_cpu.so\",\"version\":\"$torch" <<<"$out" || fail "version --json does not report torch $torch: $out"
grep -q '"features":"no-photos, no-mp4, no-ssh, s3"' <<<"$out" || fail "version --json features: $out"
grep -q '^status finished at step 20' <<<"$out" || fail "the tiny run did not finish: $out"
grep -q '^checkpoint_0.pt' <<<"$out" || fail "no checkpoint: $out"
grep -q "^remote: .*needs the trainer's SSH client (libssh), which this streetgan-trainer was built without" <<<"$out" || fail "remote was not refused in one line: $out"
echo "test_host_build_chroot: torch $torch ok in $(($(date +%s) - start)) s"
