#!/usr/bin/env bash
# The two Debian packages for another Debian release, built inside a chroot of it (mmdebstrap from
# this machine's mirror: packaging/chroot.sh) against that release's own libraries: for Debian 13,
# Qt 6.8, LibTorch 2.6, OpenCV 4.10, FFmpeg 7.1, libssh 0.11. As root. packaging/build-debs.sh does
# the packing, as on Debian 12; the build folder is build/debs-<suite>/obj (kept: a second run is
# incremental; the compiler cache is this machine's).
# Usage: packaging/build-debs-chroot.sh OUT [--suite trixie] [--jobs N]   (prints the two packages' paths)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out= suite=trixie jobs=$(nproc)
while [[ $# -gt 0 ]]; do
  case $1 in
    --suite) suite=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build-debs-chroot.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "build-debs-chroot.sh: usage: packaging/build-debs-chroot.sh OUT [--suite trixie] [--jobs N]" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "build-debs-chroot.sh: the chroot needs root" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=$src/build/debs-$suite
mkdir -p "$build/obj"
# What build-debs.sh needs to build and pack the app and the trainer (packaging/install-deps.sh's
# build part; no test tools).
packages=build-essential,cmake,ninja-build,pkg-config,git,ccache,lld,libtorch-dev,libjpeg62-turbo-dev,libpng-dev,libopencv-core-dev,libopencv-imgproc-dev,libopencv-imgcodecs-dev
packages+=,nlohmann-json3-dev,libcli11-dev,zlib1g-dev,libarchive-dev,libdeflate-dev,libgloo-dev,libssh-dev,libgif-dev,libimagequant-dev,libcurl4-openssl-dev,libexpat1-dev
packages+=,libcpp-httplib-dev,libavcodec-dev,libavformat-dev,libswscale-dev,libavutil-dev,libwebp-dev,qt6-base-dev,libqcustomplot-dev,qt6-svg-dev,libgl-dev
packages+=,dpkg-dev,file,python3
root=$build/root
packaging/chroot.sh make "$suite" "$root" "$packages"
ccache_dir=${CCACHE_DIR:-$HOME/.cache/ccache}
mkdir -p "$ccache_dir"
packaging/chroot.sh run "$root" --bind "$src:/src" --bind "$build/obj:/build" --bind "$ccache_dir:/ccache" --bind "$out:/out" "
  set -e
  git config --global --add safe.directory /src
  export CCACHE_DIR=/ccache CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DSTREETGAN_BUILD_TESTS=OFF >/build/configure.log
  cd /src && CMAKE_BUILD_PARALLEL_LEVEL=$jobs packaging/build-debs.sh /out /build
" >"$build/build.log" 2>&1 || { tail -n 40 "$build/build.log" >&2; echo "build-debs-chroot.sh: the $suite build failed (log: $build/build.log)" >&2; exit 1; }
tail -n 2 "$build/build.log" | sed "s#^/out/#$out/#"
