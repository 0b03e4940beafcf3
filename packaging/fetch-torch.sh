#!/usr/bin/env bash
# Puts the LibTorch of pip's torch (pinned to the GPU machines' version, CUDA build) into a folder
# of the build, for the `cuda` preset: the C++ headers, the CMake package and the shared libraries
# that compiling and linking need, plus the few CUDA runtime libraries that torch loads and the
# CUDA toolkit does not carry (cuSPARSELt, NVSHMEM, cuFile), so that the same binary also runs its
# CPU path on a machine without a GPU (the unit tests in CI). Nothing is pip-installed: the wheels
# are downloaded with `pip download --no-deps` and only their library folders are unpacked.
# Idempotent: a stamp file records what was unpacked; the wheels are cached in
# ${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/streetgan}/wheels between runs and clones.
# Usage: packaging/fetch-torch.sh [DEST] [--torch VERSION]   (default: build/cuda/_deps, 2.11.0)
#   --torch VERSION  another torch from pip's index (2.9.1, 2.12.1, 2.15.0, ...), for the GPU bundles
#                    of other torch versions (packaging/gpu-bundle.sh --torch): its wheel and every
#                    CUDA library wheel its metadata pins (CUDA 12.8 for 2.9 and 2.10, 13 for 2.11
#                    on), as pip would install them, since this machine's toolkit is CUDA 13 only;
#                    NCCL's header from the NCCL wheel it pins (the c10d headers compiled against
#                    it must see the NCCL torch was built with)
# Prints DEST/torch (the CMAKE_PREFIX_PATH: DEST/torch/share/cmake) when done.
set -euo pipefail
cd "$(dirname "$0")/.."

# The GPU machines carry torch 2.11.0+cu130 (pip's default build of 2.11.0 is cu130); the runtime
# libraries are the versions that torch 2.11.0's own wheel metadata pins.
TORCH_VERSION=2.11.0
RUNTIME_WHEELS=(nvidia-cusparselt-cu13==0.8.0 nvidia-nvshmem-cu13==3.4.5 nvidia-cufile==1.15.1.6)
PYTHON_TAG=3.12   # only the C++ parts are used; any CPython tag carries the same LibTorch

dest=
while [[ $# -gt 0 ]]; do
  case $1 in
    --torch) [[ ${2:-} =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "fetch-torch: --torch needs a full version as pip names it (e.g. 2.9.1)" >&2; exit 2; }
             [[ $2 == "$TORCH_VERSION" ]] || { TORCH_VERSION=$2 RUNTIME_WHEELS=(); }; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fetch-torch: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) dest=$1; shift ;;
  esac
done
dest=${dest:-build/cuda/_deps}
cache=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/wheels
stamp="$dest/torch/.streetgan-fetched"
# Another version than the cuda preset's: everything from pip (marked "with its CUDA wheels").
if [[ ${#RUNTIME_WHEELS[@]} -eq 0 ]]; then want="torch==$TORCH_VERSION with its CUDA wheels"; else want="torch==$TORCH_VERSION ${RUNTIME_WHEELS[*]}"; fi

if [[ -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
  echo "fetch-torch: $dest/torch already holds $want"
  echo "$dest/torch"
  exit 0
fi

pip=(python3 -m pip)
"${pip[@]}" --version >/dev/null 2>&1 || { echo "fetch-torch: python3 has no pip: apt install python3-pip (or use a Python with pip first on PATH)" >&2; exit 2; }
command -v unzip >/dev/null || { echo "fetch-torch: unzip is missing: apt install unzip" >&2; exit 2; }
mkdir -p "$cache"

# download WHEEL-SPEC: into the cache unless a wheel of that name and version is already there.
download() {
  local spec=$1 name=${1%%==*} version=${1##*==}
  local glob="${name//-/_}-${version}-*.whl"
  if compgen -G "$cache/$glob" >/dev/null; then return 0; fi
  echo "fetch-torch: downloading $spec"
  # Several platform tags: the nvidia wheels are tagged manylinux2014 or manylinux_2_27/2_28.
  "${pip[@]}" download --quiet --no-deps --only-binary=:all: --python-version "$PYTHON_TAG" \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux2014_x86_64 \
    -d "$cache" "$spec" ||
    { echo "fetch-torch: could not download $spec from pip's index: check the network, or put the wheel into $cache" >&2; exit 3; }
}
platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
if [[ ${#RUNTIME_WHEELS[@]} -eq 0 ]]; then
  # torch's own pins, one requirement at a time (its nvidia-*-cu12/13 wheels, the cuda-toolkit
  # extras, which pip resolves to NVIDIA's wheels): an index may lack one exact pin (this project's
  # index has no nvidia-nccl-cu13 2.30.7, which torch 2.14 and 2.15 pin), and then the newest version
  # above the pin stands in, said here. For NCCL that is safe in this direction only: the c10d
  # headers compiled against a newer nccl.h allocate at least what torch's code expects.
  echo "fetch-torch: downloading torch==$TORCH_VERSION and the CUDA wheels it pins (a few GB, cached in $cache)"
  download "torch==$TORCH_VERSION"
  torch_whl=$(compgen -G "$cache/torch-${TORCH_VERSION}-*.whl" | head -n1)
  mapfile -t pins < <(unzip -p "$torch_whl" '*.dist-info/METADATA' |
    sed -n 's/^Requires-Dist: \(\(nvidia-\|cuda-toolkit\)[^;]*\);.*Linux.*/\1/p' | tr -d ' ')
  nvidia_wheels=()
  use_toolkit=0
  for pin in "${pins[@]}"; do
    log=$("${pip[@]}" download --no-color --progress-bar off --only-binary=:all: --python-version "$PYTHON_TAG" "${platforms[@]}" -d "$cache" "$pin" 2>&1) || {
      if [[ $pin == cuda-toolkit* ]]; then
        # CUDA 13's own libraries (cudart, cublas, cufft, ...): where the index cannot resolve the
        # pinned cuda-toolkit's parts, this machine's CUDA 13 toolkit stands in, as it does for
        # the cuda preset's 2.11, with the cuFile wheel it lacks.
        [[ -f ${CUDA_HOME:-/usr/local/cuda}/lib64/libcudart.so.13 ]] ||
          { echo "fetch-torch: $pin is not on pip's index and there is no CUDA 13 toolkit at ${CUDA_HOME:-/usr/local/cuda}" >&2; exit 3; }
        echo "fetch-torch: $pin is not on pip's index: using this machine's CUDA 13 toolkit and nvidia-cufile==1.15.1.6"
        use_toolkit=1
        download "nvidia-cufile==1.15.1.6"
        nvidia_wheels+=("$(compgen -G "$cache/nvidia_cufile-1.15.1.6-*.whl" | head -n1)")
        continue
      fi
      # The extras stay ("cuda-toolkit[cudart,...]": without them only the empty meta wheel comes).
      base=${pin%%[=<>]*} name=${base%%\[*} floor=$(sed -n 's/.*==\([0-9.]*\).*/\1/p; s/.*>=\([0-9.]*\).*/\1/p' <<<"$pin" | head -n1)
      log=$("${pip[@]}" download --no-color --progress-bar off --only-binary=:all: --python-version "$PYTHON_TAG" "${platforms[@]}" -d "$cache" "$base>=$floor" 2>&1) ||
        { echo "$log" | tail -n 3 >&2; echo "fetch-torch: could not download $pin (nor a newer $name) for torch==$TORCH_VERSION from pip's index: check the network" >&2; exit 3; }
      echo "fetch-torch: $pin is not on pip's index: using $(sed -n 's,^ *\(Saved\|File was already downloaded\) .*/\([^/]*\)\.whl$,\2,p' <<<"$log" | grep -i "^${name//-/_}-" | head -n1)"
    }
    mapfile -t -O "${#nvidia_wheels[@]}" nvidia_wheels < <(sed -n 's,^ *\(Saved\|File was already downloaded\) \(.*/nvidia_[^/]*\.whl\)$,\2,p' <<<"$log")
  done
  mapfile -t nvidia_wheels < <(printf '%s\n' "${nvidia_wheels[@]}" | sort -u)
  [[ ${#nvidia_wheels[@]} -gt 0 ]] || echo "fetch-torch: torch==$TORCH_VERSION pins no NVIDIA wheel: a CPU build?"
else
  download "torch==$TORCH_VERSION"
  for w in "${RUNTIME_WHEELS[@]}"; do download "$w"; done
fi

cuda_home=${CUDA_HOME:-/usr/local/cuda}
[[ ${#RUNTIME_WHEELS[@]} -eq 0 || -f $cuda_home/lib64/libcudart.so.13 ]] ||
  { echo "fetch-torch: $cuda_home/lib64/libcudart.so.13 is missing: install the CUDA 13 toolkit (with cuDNN 9 and NCCL 2) or set CUDA_HOME" >&2; exit 2; }

tmp="$dest/.unpack.$$"
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
torch_whl=$(compgen -G "$cache/torch-${TORCH_VERSION}-*.whl" | head -n1)
echo "fetch-torch: unpacking $(basename "$torch_whl")"
# The Python extension (libtorch_python) and the Python sources are not needed by a C++ program.
unzip -q -o "$torch_whl" 'torch/include/*' 'torch/share/*' 'torch/lib/*' 'torch/version.py' \
  -x 'torch/lib/libtorch_python.so' -d "$tmp"
# The folder is laid out like pip's site-packages, so torch's libraries find their CUDA libraries
# through their own RPATH ($ORIGIN/../../nvidia/<part>/lib), as on a GPU box, with no
# LD_LIBRARY_PATH: the wheels' libraries as they are, the toolkit's as links into nvidia/cu13/lib.
# The toolkit's libraries as links in nvidia/cu13/lib, each only where no wheel brings its own: a
# wheel's is the version torch pins (the toolkit's NCCL 2.28 beside torch 2.12's pinned 2.29 would be
# found first by the linker's -rpath-link and leave ncclCommSuspend... undefined).
link_toolkit_libraries() {
  mkdir -p "$tmp/nvidia/cu13/lib"
  local lib name
  for lib in "$cuda_home"/lib64/lib*.so.* "$cuda_home"/lib/lib*.so.*; do
    name=$(basename "$lib")
    [[ -e $lib ]] && ! compgen -G "$tmp/nvidia/*/lib/$name" >/dev/null && ln -s "$(readlink -f "$lib")" "$tmp/nvidia/cu13/lib/$name"
  done
  return 0
}
if [[ ${#RUNTIME_WHEELS[@]} -eq 0 ]]; then
  mkdir -p "$tmp/nvidia"
  for whl in "${nvidia_wheels[@]}"; do
    # Libraries of every wheel; of headers, only NCCL's (the c10d headers include <nccl.h>).
    unzip -q -o "$whl" 'nvidia/*/lib/*.so*' -d "$tmp" 2>/dev/null || true
    unzip -q -o "$whl" 'nvidia/nccl/include/*' -d "$tmp" 2>/dev/null || true
  done
  if [[ ${use_toolkit:-0} -eq 1 ]]; then
    link_toolkit_libraries
  fi
else
  for w in "${RUNTIME_WHEELS[@]}"; do
    name=${w%%==*} version=${w##*==}
    whl=$(compgen -G "$cache/${name//-/_}-${version}-*.whl" | head -n1)
    unzip -q -o "$whl" 'nvidia/*/lib/*.so*' -d "$tmp"
  done
  link_toolkit_libraries
fi
rm -rf "$dest/torch" "$dest/nvidia"
mkdir -p "$dest"
mv "$tmp/torch" "$tmp/nvidia" "$dest/"
echo "$want" >"$stamp"
echo "fetch-torch: $dest/torch holds $want ($(du -sh "$dest/torch" | cut -f1)); CUDA libraries from $([[ ${#RUNTIME_WHEELS[@]} -eq 0 ]] && echo "pip's wheels ($(du -sh "$dest/nvidia" | cut -f1))" || echo "$cuda_home")"
echo "$dest/torch"
