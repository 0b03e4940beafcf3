#!/usr/bin/env bash
# The GPU bundle built for older systems: the `cuda` preset's trainer (pip's torch 2.11, CUDA 13;
# no photos, no MP4) compiled inside a Debian 11 chroot (glibc 2.31, GCC 10) and bundled there with
# Debian 11's libraries, so that no file needs a newer GLIBC_ or GLIBCXX_ than Debian 11 has.
# Measured: GLIBC 2.30 and GLIBCXX 3.4.26, both from our own two programs (libstdc++'s
# condition_variable waits use pthread_cond_clockwait, the math library's log is GLIBC_2.29, and
# std::filesystem lives in GCC 9's libstdc++); every bundled Debian 11 library is at 2.28 or below.
# So: Debian 11, Ubuntu 20.04, Amazon Linux 2023, RHEL/Rocky 9; not RHEL/Rocky 8 (glibc 2.28, GCC 8's
# libstdc++). As root.
# What Debian 11 lacks or has too old comes from this machine, header-only: CLI11 2.3, nlohmann-json
# 3.11 and Gloo's headers (Debian 12's packages), and cpp-httplib's single header (Debian 12's
# source package: its binary package is a compiled library). The CUDA toolkit is this machine's.
# Usage: packaging/gpu-bundle-floor.sh OUT [--suite bullseye] [--jobs N]
#   OUT/streetgan-trainer-bundle-torch2.11-glibc<FLOOR>-glibcxx<V>-x86_64.tar.gz and OUT/bundle/
#   (the unpacked folder); build files in build/floor-<suite> (kept: a second run is incremental)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out= suite=bullseye jobs=$(nproc)
while [[ $# -gt 0 ]]; do
  case $1 in
    --suite) suite=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-bundle-floor.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "gpu-bundle-floor.sh: usage: packaging/gpu-bundle-floor.sh OUT [--suite bullseye] [--jobs N]" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "gpu-bundle-floor.sh: the chroot needs root" >&2; exit 2; }
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
[[ -x $cuda/bin/nvcc ]] || { echo "gpu-bundle-floor.sh: no CUDA toolkit at $cuda (set CUDA_HOME)" >&2; exit 2; }
for f in /usr/include/CLI/CLI.hpp /usr/include/nlohmann/json.hpp /usr/include/gloo/config.h; do
  [[ -f $f ]] || { echo "gpu-bundle-floor.sh: $f is missing: packaging/install-deps.sh installs it" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
deps=$src/build/cuda/_deps
packaging/fetch-torch.sh "$deps" >/dev/null

build=$src/build/floor-$suite
root=$build/root
mkdir -p "$build/vendor/include" "$build/vendor/share/cmake" "$build/vendor/lib/pkgconfig" "$build/obj"
# Header-only parts from this machine, in a prefix of their own (their CMake files find their
# headers relative to themselves).
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/gloo "$build/vendor/include/"
cp -r /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json "$build/vendor/share/cmake/"
if [[ ! -f $build/vendor/include/httplib.h ]]; then
  # The single header from Debian's source package (this machine's mirror), no TLS, no zlib: `serve`
  # is plain HTTP on loopback.
  apt=$build/apt
  packaging/chroot.sh download bookworm "$apt/src" --source cpp-httplib
  tar -xf "$(ls "$apt"/src/cpp-httplib_*.orig.tar.* | head -n 1)" -C "$apt/src" --wildcards '*/httplib.h'
  cp "$(find "$apt/src" -name httplib.h | head -n 1)" "$build/vendor/include/httplib.h"
  version=$(sed -n 's/^#define CPPHTTPLIB_VERSION "\(.*\)"/\1/p' "$build/vendor/include/httplib.h")
  printf 'prefix=/vendor\nincludedir=${prefix}/include\n\nName: cpp-httplib\nDescription: header-only\nVersion: %s\nCflags: -I${includedir}\n' \
    "${version:-0.11.4}" >"$build/vendor/lib/pkgconfig/cpp-httplib.pc"
fi

packages=build-essential,git,ccache,python3-pip,python3-venv,pkg-config,patchelf,binutils,libssh-dev,zlib1g-dev,libdeflate-dev,libssl-dev,libgif-dev,libimagequant-dev
packaging/chroot.sh make "$suite" "$root" "$packages"
mkdir -p "$root/usr/local" "$root/etc/ssl/certs"
ln -sfn "$cuda" "$root/usr/local/cuda"
# pip inside trusts what this machine trusts (a proxy's certificate authority, where there is one).
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
ccache_dir=${CCACHE_DIR:-$HOME/.cache/ccache}
pip_cache=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/pip
mkdir -p "$ccache_dir" "$pip_cache"
# In the chroot: CMake and Ninja from pip (Debian 11's CMake 3.18 is older than 3.25), then the
# trainer, then the bundle and its floor, made there so that ldd finds Debian 11's libraries.
packaging/chroot.sh run "$root" --bind "$src:/src" --bind "$build/obj:/build" --bind "$build/vendor:/vendor" --bind "$deps:/deps" \
  --bind "$cuda:$cuda" --bind "$ccache_dir:/ccache" --bind "$pip_cache:/pip-cache" --bind "$out:/out" "
  set -e
  git config --global --add safe.directory /src
  [ -x /opt/tools/bin/cmake ] || { python3 -m venv /opt/tools && /opt/tools/bin/pip install -q --cert /etc/ssl/certs/ca-certificates.crt --cache-dir /pip-cache 'cmake>=3.25,<4' ninja; }
  export PATH=/opt/tools/bin:/usr/local/cuda/bin:\$PATH CCACHE_DIR=/ccache CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DCMAKE_PREFIX_PATH='/deps/torch;/vendor' -DTORCH_CUDA_ARCH_LIST='8.0;9.0' -DCUDAToolkit_ROOT=/usr/local/cuda -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DSTREETGAN_BUILD_GUI=OFF -DSTREETGAN_BUILD_TESTS=OFF -DSTREETGAN_WITH_PHOTOS=OFF -DSTREETGAN_WITH_MP4=OFF >/build/configure.log
  cmake --build /build --target streetgan-trainer streetgan-trainer-torch -- -j $jobs
  cd /src && packaging/gpu-bundle.sh /out/bundle --trainer /build/app/streetgan-trainer --tar /out
"
