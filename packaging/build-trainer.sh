#!/usr/bin/env bash
# Builds the headless trainer alone (no Qt; the `trainer-gpu` preset) on a GPU box, against the
# LibTorch inside a PyTorch install (a conda env or venv, as AWS deep-learning images carry) or a
# LibTorch folder, then prints what the built trainer sees (version, LibTorch, CPU or CUDA). No root.
# Usage: packaging/build-trainer.sh [--python PYTHON | --libtorch DIR] [--build-dir DIR] [--jobs N] [--system-deps]
#   --python PYTHON   the Python whose torch to build against (default: python3 on PATH)
#   --libtorch DIR    a LibTorch folder (the one with share/cmake/Torch) instead of a Python's torch
#   --build-dir DIR   default build/trainer-gpu
#   --system-deps     build with the system's -dev packages even where third_party/ is there
# From the source archive the app uploads (which carries third_party/, packaging/vendor-sources.sh),
# the lean trainer is built with the libraries in it (cmake/Vendored.cmake: no photos, MP4, WebP or
# SSH; S3 through the host's libcurl.so.4 where there is one): it needs a C and C++17 compiler and
# the torch, and takes CMake (3.25+) and Ninja from pip where the host has none. A git checkout
# without third_party/ builds the full trainer with the system's packages: each missing one is
# named with the command that installs it.
# A CUDA build of torch's own CMake files ask for the CUDA toolkit's nvcc (CUDA_HOME, /usr/local/cuda
# or nvcc on PATH); where there is none, LibTorch is imported from the torch package itself
# (cmake/TorchPackage.cmake), with the CUDA headers pip's wheels bring: no toolkit needed.
# The trainer lands in BUILD_DIR/app/streetgan-trainer.
set -euo pipefail
cd "$(dirname "$0")/.."
python=python3
libtorch=
build=build/trainer-gpu
jobs=$(nproc)
system_deps=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --python) python=$2; shift 2 ;;
    --libtorch) libtorch=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --system-deps) system_deps=1; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-trainer.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
vendored=0
[[ $system_deps -eq 1 || ! -f third_party/README.md ]] || vendored=1

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
  if [[ $vendored -eq 0 ]] && compgen -G "/usr/lib/*/cmake/Torch/TorchConfig.cmake" >/dev/null; then
    echo "build-trainer.sh: $python's torch has no CMake files ($prefix); using the system LibTorch (libtorch-dev)"
    prefix=
  else
    echo "build-trainer.sh: $prefix/Torch/TorchConfig.cmake is missing: use a PyTorch from pip or conda, pass --libtorch DIR, or apt install libtorch-dev" >&2
    exit 2
  fi
fi
echo "build-trainer.sh: LibTorch from ${prefix:-the system}"
mkdir -p "$build"
build=$(cd "$build" && pwd)

# version_at_least HAVE WANT
version_at_least() { [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1) == "$2" ]]; }
# CMake 3.25+ and Ninja: the host's, else pip's wheels unpacked into BUILD_DIR/tools (their
# programs run without Python).
tools() {
  local cmake_ok=0
  if command -v cmake >/dev/null; then
    version_at_least "$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')" 3.25 && cmake_ok=1
  fi
  if [[ $cmake_ok -eq 1 ]] && command -v ninja >/dev/null; then return 0; fi
  local t=$build/tools
  # pip's cmake wheel keeps its program in cmake/data/bin; the ninja wheel in ninja/data/bin up to
  # 1.11, in bin/ (the program itself, not a Python wrapper) from 1.13.
  if [[ ! -x $t/cmake/data/bin/cmake || ! ( -x $t/ninja/data/bin/ninja || -x $t/bin/ninja ) ]]; then
    local py=${python:-python3}
    [[ -n $libtorch ]] && py=python3
    echo "build-trainer.sh: CMake 3.25+ or Ninja missing: installing them from pip into $t"
    "$py" -m pip install --quiet --disable-pip-version-check --no-warn-script-location --target "$t" 'cmake>=3.25,<4' ninja ||
      { echo "build-trainer.sh: cannot install CMake and Ninja with $py -m pip: install cmake (3.25+) and ninja, or give pip access to its index" >&2; exit 2; }
  fi
  export PATH=$t/cmake/data/bin:$t/ninja/data/bin:$t/bin:$PATH
}

if [[ $vendored -eq 1 ]]; then
  command -v c++ >/dev/null && command -v cc >/dev/null ||
    { echo "build-trainer.sh: no C/C++ compiler (c++, cc): install g++ (dnf install gcc-c++, apt install g++)" >&2; exit 2; }
  tools
  flags=(-DSTREETGAN_VENDORED=ON -DSTREETGAN_WITH_PHOTOS=OFF -DSTREETGAN_WITH_MP4=OFF -DSTREETGAN_WITH_SSH=OFF)
else
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
  need libjpeg62-turbo-dev /usr/include/jpeglib.h /usr/include/*/jpeglib.h
  need libpng-dev /usr/include/png.h /usr/include/libpng16/png.h
  need nlohmann-json3-dev /usr/include/nlohmann/json.hpp
  need libcli11-dev /usr/include/CLI/CLI.hpp
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
  # Zip, tar and tar.gz batches need no libarchive (core/base/dataset/ArchiveReader.h); only
  # bzip2/xz/zstd tars would, and they are refused with the command that converts them.
  flags=(-DSTREETGAN_WITH_LIBARCHIVE=OFF)
fi

# A pip torch keeps the CUDA libraries libtorch_cuda needs in site-packages/nvidia/*/lib: the
# linker resolves them there (-rpath-link), not in an older toolkit's lib folder.
rpath_link=
if [[ -n $prefix ]]; then
  site=$(cd "$prefix/../../.." 2>/dev/null && pwd) || site=
  [[ -z $site ]] || rpath_link=$( (ls -d "$site"/nvidia/*/lib "$site"/nvidia/cu*/lib 2>/dev/null || true) | sort -u | paste -sd: -)
fi
# nvcc for a CUDA torch's CMake files, where it is not on PATH.
for c in "${CUDA_HOME:-}" /usr/local/cuda; do
  [[ -n $c && -x $c/bin/nvcc ]] && ! command -v nvcc >/dev/null && export PATH=$c/bin:$PATH
done

# crt_headers TORCH_PACKAGE: pip's CUDA runtime wheel brings the runtime's headers but not the crt/
# ones they include (host_config.h...), which come with nvcc's wheels: where neither the wheels beside
# torch nor CUDA_HOME have them, that part alone, of the runtime's version, from pip into
# BUILD_DIR/tools/cuda (133 KB for CUDA 13: nvidia-cuda-crt; CUDA 12 keeps them in nvcc's wheel).
# Prints the include folders to add (none where nothing was missing).
crt_headers() {
  local site
  site=$(cd "$1/.." && pwd)
  if compgen -G "$site/nvidia/*/include/crt/host_config.h" >/dev/null || [[ -f ${CUDA_HOME:-/nonexistent}/include/crt/host_config.h ]]; then return 0; fi
  local t=$build/tools/cuda spec
  if ! compgen -G "$t/nvidia/*/include/crt/host_config.h" >/dev/null; then
    spec=$("$python" -c '
import importlib.metadata as m
for runtime, headers in (("nvidia-cuda-runtime", "nvidia-cuda-crt"), ("nvidia-cuda-runtime-cu12", "nvidia-cuda-nvcc-cu12")):
    try:
        v = m.version(runtime)
    except m.PackageNotFoundError:
        continue
    print(headers + "==" + ".".join(v.split(".")[:2]) + ".*")
    break') || spec=
    [[ -n $spec ]] || { echo "build-trainer.sh: $python's torch is a CUDA build but no pip CUDA runtime wheel (nvidia-cuda-runtime) is installed beside it: set CUDA_HOME to a CUDA toolkit, or reinstall torch with pip" >&2; exit 2; }
    echo "build-trainer.sh: the CUDA runtime's crt/ headers are missing: installing $spec from pip into $t" >&2
    "$python" -m pip install --quiet --disable-pip-version-check --no-deps --target "$t" "$spec" >&2 ||
      { echo "build-trainer.sh: cannot install $spec with $python -m pip: give pip access to its index, or set CUDA_HOME to a CUDA toolkit" >&2; exit 2; }
  fi
  ls -d "$t"/nvidia/*/include | paste -sd';' -
}

# LibTorch through torch's CMake files, or, for a CUDA torch where no nvcc is found (those files
# need it), straight from the package (STREETGAN_TORCH_PACKAGE, cmake/TorchPackage.cmake).
torch_import=(-DSTREETGAN_TORCH_PACKAGE= ${prefix:+-DCMAKE_PREFIX_PATH="$prefix"})
if [[ -n $prefix ]] && ! command -v nvcc >/dev/null; then
  package=$prefix
  [[ -n $libtorch ]] || package=$(cd "$prefix/../.." && pwd) # <torch>/share/cmake → <torch>
  if [[ -f $package/lib/libtorch_cuda.so ]]; then
    echo "build-trainer.sh: no nvcc (which torch's CMake files want for a CUDA torch): LibTorch from $package directly"
    headers=$(crt_headers "$package") || exit 2
    torch_import=(-DSTREETGAN_TORCH_PACKAGE="$package" -DSTREETGAN_CUDA_HEADER_DIRS="$headers")
  fi
fi

cmake --preset trainer-gpu -B "$build" "${flags[@]}" "${torch_import[@]}" \
  ${rpath_link:+-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$rpath_link}
cmake --build "$build" --target streetgan-trainer -j "$jobs"
trainer=$build/app/streetgan-trainer
echo "build-trainer.sh: built $trainer"
# What the trainer sees: its version, LibTorch version and device (CUDA or CPU).
"$trainer" --version
