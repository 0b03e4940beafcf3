#!/usr/bin/env bash
# Builds the headless trainer alone (no Qt; the `trainer-gpu` preset) on a GPU box, against the
# LibTorch inside a PyTorch install (a conda env or venv, as AWS deep-learning images carry) or a
# LibTorch folder, then prints what the built trainer sees (version, LibTorch, CPU or CUDA).
# Usage: packaging/build-trainer.sh [--python PYTHON | --libtorch DIR] [--build-dir DIR] [--jobs N]
#   --python PYTHON   the Python whose torch to build against (default: python3 on PATH)
#   --libtorch DIR    a LibTorch folder (the one with share/cmake/Torch) instead of a Python's torch
#   --build-dir DIR   default build/trainer-gpu
# The trainer lands in BUILD_DIR/app/streetgan-trainer. Other dependencies come from the system;
# each missing one is named with the command that installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
python=python3
libtorch=
build=build/trainer-gpu
jobs=$(nproc)
while [[ $# -gt 0 ]]; do
  case $1 in
    --python) python=$2; shift 2 ;;
    --libtorch) libtorch=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-trainer.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if [[ -z $libtorch ]]; then
  command -v "$python" >/dev/null || { echo "build-trainer.sh: $python not found: pass --python /path/to/env/bin/python or --libtorch DIR" >&2; exit 2; }
  prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) ||
    { echo "build-trainer.sh: $python cannot import torch: activate the environment that has PyTorch, or pass --python / --libtorch" >&2; exit 2; }
else
  [[ -d $libtorch/share/cmake/Torch ]] || { echo "build-trainer.sh: $libtorch/share/cmake/Torch is missing: pass the LibTorch folder itself" >&2; exit 2; }
  prefix=$(cd "$libtorch" && pwd)
fi
if [[ -z $libtorch && ! -f $prefix/Torch/TorchConfig.cmake ]]; then
  # Debian's python3-torch names a CMake folder it does not ship; its LibTorch is libtorch-dev's.
  if compgen -G "/usr/lib/*/cmake/Torch/TorchConfig.cmake" >/dev/null; then
    echo "build-trainer.sh: $python's torch has no CMake files ($prefix); using the system LibTorch (libtorch-dev)"
    prefix=
  else
    echo "build-trainer.sh: $prefix/Torch/TorchConfig.cmake is missing: use a PyTorch from pip or conda, pass --libtorch DIR, or apt install libtorch-dev" >&2
    exit 2
  fi
fi
echo "build-trainer.sh: LibTorch from ${prefix:-the system}"

# Each system dependency: a file that shows it is there, and the package that brings it
# (Debian/Ubuntu names; the trainer needs no Qt).
missing=()
need() { # need PACKAGE PATH-GLOB...
  local pkg=$1; shift
  for g in "$@"; do compgen -G "$g" >/dev/null && return 0; done
  missing+=("$pkg")
}
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v c++ >/dev/null || missing+=(build-essential)
need libopencv-imgcodecs-dev /usr/include/opencv4/opencv2/imgcodecs.hpp
need nlohmann-json3-dev /usr/include/nlohmann/json.hpp
need libcli11-dev /usr/include/CLI/CLI.hpp
need libarchive-dev /usr/include/archive.h
need libdeflate-dev /usr/include/libdeflate.h
need zlib1g-dev /usr/include/zlib.h
need libssh-dev /usr/include/libssh/libssh.h
need libcurl4-openssl-dev /usr/include/*/curl/curl.h /usr/include/curl/curl.h
need libexpat1-dev /usr/include/expat.h
need libssl-dev /usr/include/openssl/evp.h
need libgif-dev /usr/include/gif_lib.h
need libimagequant-dev /usr/include/libimagequant.h
need libcpp-httplib-dev /usr/include/httplib.h
need libavcodec-dev /usr/include/*/libavcodec/avcodec.h /usr/include/libavcodec/avcodec.h
need libavformat-dev /usr/include/*/libavformat/avformat.h /usr/include/libavformat/avformat.h
need libswscale-dev /usr/include/*/libswscale/swscale.h /usr/include/libswscale/swscale.h
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "build-trainer.sh: missing: ${missing[*]}" >&2
  echo "  install them with: sudo apt install ${missing[*]}" >&2
  exit 2
fi

cmake --preset trainer-gpu -B "$build" ${prefix:+-DCMAKE_PREFIX_PATH="$prefix"}
cmake --build "$build" --target streetgan-trainer -j "$jobs"
trainer=$build/app/streetgan-trainer
echo "build-trainer.sh: built $trainer"
# What the trainer sees: its version, LibTorch version and device (CUDA or CPU).
"$trainer" --version
