#!/usr/bin/env bash
# The GPU bundle built for older systems: the `cuda` preset's trainer (pip's torch, 2.11 unless
# --torch says otherwise; photos (JPEG, PNG; zip, tar and tar.gz batches), no MP4, no WebP: Debian 11's libwebp needs GLIBC 2.29)
# compiled inside a Debian 11 chroot (glibc 2.31, GCC 10) with STREETGAN_GLIBC_FLOOR=2.28 (cmake/GlibcFloor.cmake) and bundled there with Debian 11's
# libraries and libstdc++ (lib/cxx, used where the host's is older), so that no file needs a GLIBC_
# above 2.28 and no host libstdc++ newer than GCC 8's. Measured: GLIBC 2.28 (2.30 and 2.29 without
# the floor: libstdc++'s clock waits, the re-versioned log); our programs need GLIBCXX 3.4.26
# (std::filesystem, GCC 9) and carry their libstdc++ for RHEL/Rocky 8's 3.4.25.
# So: glibc 2.28 on, RHEL/Rocky 8 and 9, Debian 10 and 11, Ubuntu 20.04, Amazon Linux 2023. As root.
# What Debian 11 lacks or has too old comes from this machine, header-only: CLI11 2.3, nlohmann-json
# 3.11 and Gloo's headers (Debian 12's packages), and cpp-httplib's single header (Debian 12's
# source package: its binary package is a compiled library). The CUDA toolkit is this machine's
# (headers only: the trainer calls CUDA through torch's libraries, which load the CUDA the host's
# torch came with); NCCL's header comes with the torch (packaging/fetch-torch.sh --torch).
# Usage: packaging/gpu-bundle-floor.sh OUT [--torch VERSION] [--suite bullseye] [--jobs N]
#   OUT/streetgan-trainer-bundle-torch<MINOR>-glibc<FLOOR>-x86_64.tar.gz and OUT/bundle/ (the
#   unpacked folder); torch in build/torch-<VERSION>/_deps (build/cuda/_deps for 2.11.0), build
#   files in build/floor-<suite>[-torch<VERSION>] (kept: a second run is incremental)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out= suite=bullseye jobs=$(nproc) torch=
while [[ $# -gt 0 ]]; do
  case $1 in
    --suite) suite=$2; shift 2 ;;
    --torch) torch=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-bundle-floor.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "gpu-bundle-floor.sh: usage: packaging/gpu-bundle-floor.sh OUT [--torch VERSION] [--suite bullseye] [--jobs N]" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "gpu-bundle-floor.sh: the chroot needs root" >&2; exit 2; }
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
[[ -x $cuda/bin/nvcc ]] || { echo "gpu-bundle-floor.sh: no CUDA toolkit at $cuda (set CUDA_HOME)" >&2; exit 2; }
for f in /usr/include/CLI/CLI.hpp /usr/include/nlohmann/json.hpp /usr/include/gloo/config.h; do
  [[ -f $f ]] || { echo "gpu-bundle-floor.sh: $f is missing: packaging/install-deps.sh installs it" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ -z $torch || $torch == $(sed -n 's/^TORCH_VERSION=//p' packaging/fetch-torch.sh) ]]; then
  deps=$src/build/cuda/_deps build=$src/build/floor-$suite
  packaging/fetch-torch.sh "$deps" >/dev/null
else
  deps=$src/build/torch-$torch/_deps build=$src/build/floor-$suite-torch$torch
  packaging/fetch-torch.sh "$deps" --torch "$torch" >/dev/null
fi

# One Debian 11 root for every torch version's build.
root=$src/build/floor-$suite/root
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

packages=build-essential,git,ccache,python3-pip,python3-venv,pkg-config,patchelf,binutils,libssh-dev,zlib1g-dev,libdeflate-dev,libssl-dev,libgif-dev,libimagequant-dev,libcurl4-openssl-dev,libexpat1-dev,libjpeg62-turbo-dev,libpng-dev
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
  # ld.bfd resolves libtorch_cuda's own needs (libnccl.so.2, ...) through -rpath before their
  # RUNPATH: torch's CMake puts the toolkit's lib folder there, whose NCCL is older than the one
  # torch 2.12+ pins (undefined ncclCommSuspend...). -rpath-link to the torch's own wheels wins.
  rpath_link=\$(ls -d /deps/nvidia/*/lib 2>/dev/null | paste -sd: -)
  # libpng statically: Debian 11's libpng16.so needs pow@GLIBC_2.29; linked from its .a, the floor's
  # --wrap (cmake/GlibcFloor.cmake) sends those calls to the 2.2.5 versions as it does our own.
  cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    \${rpath_link:+-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,\$rpath_link} \
    -DCMAKE_PREFIX_PATH='/deps/torch;/vendor' -DTORCH_CUDA_ARCH_LIST='8.0;9.0' -DCUDAToolkit_ROOT=/usr/local/cuda -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DSTREETGAN_BUILD_GUI=OFF -DSTREETGAN_BUILD_TESTS=OFF -DSTREETGAN_WITH_PHOTOS=ON -DPNG_LIBRARY_RELEASE=/usr/lib/x86_64-linux-gnu/libpng16.a -DSTREETGAN_WITH_LIBARCHIVE=OFF -DSTREETGAN_WITH_MP4=OFF -DSTREETGAN_WITH_WEBP=OFF -DSTREETGAN_GLIBC_FLOOR=2.28 >/build/configure.log
  cmake --build /build --target streetgan-trainer streetgan-trainer-torch -- -j $jobs
  cd /src && packaging/gpu-bundle.sh /out/bundle --trainer /build/app/streetgan-trainer --tar /out --cxx-runtime
"
