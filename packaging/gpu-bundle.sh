#!/usr/bin/env bash
# Makes one folder that runs the GPU trainer on a machine that has PyTorch (torch 2.11.0 with CUDA,
# as pip installs it) and nothing of Debian's: the `cuda` preset's streetgan-trainer (the
# LibTorch-free front) and streetgan-trainer-torch beside it, and every shared library they load that is neither torch's (torch/lib, nvidia/*), nor CUDA's, nor the C library's.
# The trainer's RPATH becomes $ORIGIN/lib; `OUT/run` finds the machine's torch through its Python
# (STREETGAN_PYTHON, default python3; or STREETGAN_TORCH_SITE, the site-packages folder holding
# torch/, which the remote set-up writes into its wrapper) and execs the trainer with torch/lib and
# the nvidia libraries on LD_LIBRARY_PATH.
# Usage: packaging/gpu-bundle.sh OUT [--torch VERSION] [--trainer PATH] [--max-mb N] [--tar DIR] [--cxx-runtime]
#   (default: build/cuda's, 40 MB; PATH is the front, with streetgan-trainer-torch beside it)
#   --torch VERSION  build the trainer against pip's torch VERSION (2.9.1, 2.12.1, ...) for the oldest
#              systems first (packaging/gpu-bundle-floor.sh, in a Debian 11 chroot, as root), then
#              bundle it: OUT holds the unpacked bundle and its .tar.gz
#   --cxx-runtime  carry the libstdc++ the trainer was linked with in lib/cxx; `run` puts it first
#              only where the host's libstdc++ lacks the GLIBCXX version the trainer needs
#              (RHEL/Rocky 8: GCC 8's libstdc++ stops at GLIBCXX_3.4.25)
#   --tar DIR  also packs OUT as DIR/streetgan-trainer-bundle-torch<MINOR>-glibc<FLOOR>[-glibcxx<V>]-x86_64.tar.gz
#              (MINOR: the LibTorch it was built against; FLOOR, V: packaging/check-floor.sh's GLIBC and,
#              since the host's libstdc++ serves it, GLIBCXX),
#              the file the remote set-up chooses by (core/base/remote/TrainerPlan), and prints its path
# Fails, listing the largest libraries, when the folder is over --max-mb.
set -euo pipefail
cd "$(dirname "$0")/.."
out=
trainer=build/cuda/app/streetgan-trainer
max_mb=40
tar_dir=
cxx_runtime=0
torch_version=
while [[ $# -gt 0 ]]; do
  case $1 in
    --trainer) trainer=$2; shift 2 ;;
    --max-mb) max_mb=$2; shift 2 ;;
    --tar) tar_dir=$2; shift 2 ;;
    --torch) torch_version=$2; shift 2 ;;
    --cxx-runtime) cxx_runtime=1; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-bundle.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "gpu-bundle.sh: usage: packaging/gpu-bundle.sh OUT [--torch VERSION] [--trainer PATH] [--max-mb N] [--tar DIR] [--cxx-runtime]" >&2; exit 2; }
# Another torch: its own build, made where the floor is (the bundle a user downloads is that one).
[[ -z $torch_version ]] || exec packaging/gpu-bundle-floor.sh "$out" --torch "$torch_version"
torch_trainer=$(dirname "$trainer")/streetgan-trainer-torch
[[ -x $trainer && -x $torch_trainer ]] || { echo "gpu-bundle.sh: no trainer at $trainer: build the cuda preset first (packaging/fetch-torch.sh && cmake --preset cuda && cmake --build --preset cuda)" >&2; exit 2; }
command -v patchelf >/dev/null || { echo "gpu-bundle.sh: patchelf is missing: apt install patchelf" >&2; exit 2; }
# The LibTorch it was built against, asked while the build tree's RPATH still finds it.
libtorch=$("$trainer" version --json | sed -n 's/.*"libtorch":"\([0-9]*\.[0-9]*\).*/\1/p')
[[ -n $libtorch ]] || { echo "gpu-bundle.sh: $trainer version --json names no LibTorch version: is it a streetgan-trainer?" >&2; exit 2; }

# What the machine's torch and CUDA provide, and what every Linux has: left out of the bundle.
provided() {
  case $(basename "$1") in
    libtorch*|libc10*|libcaffe2*|libshm.so|libgomp*.so*) return 0 ;;
    libcuda*|libcudnn*|libcublas*|libcufft*|libcurand*|libcusolver*|libcusparse*|libnccl*|libnvrtc*|libnvJitLink*|libnvshmem*|libcufile*|libcupti*|libnvToolsExt*) return 0 ;;
    libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*|libresolv.so.*|libutil.so.*) return 0 ;;
  esac
  return 1
}

rm -rf "$out"
mkdir -p "$out/lib"
cp "$trainer" "$out/streetgan-trainer"
cp "$torch_trainer" "$out/streetgan-trainer-torch"
missing=()
while read -r name _ path _; do
  # ldd names the dynamic loader by its path ("/lib64/ld-linux-x86-64.so.2 (0x...)").
  [[ $name == /* ]] && path=$name
  [[ $path == /* ]] || { [[ $name == linux-vdso* ]] || missing+=("$name"); continue; }
  provided "$path" && continue
  cp -L "$path" "$out/lib/$name"
done < <(ldd "$trainer" "$torch_trainer" | awk 'NF >= 2 {print $1, $2, $3, $4}' | sort -u)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "gpu-bundle.sh: the trainer's libraries ${missing[*]} are not found here: run from the build machine" >&2
  exit 3
fi
for f in "$out/streetgan-trainer" "$out/streetgan-trainer-torch"; do patchelf --set-rpath '$ORIGIN/lib' "$f"; done
for f in "$out"/lib/*; do patchelf --set-rpath '$ORIGIN' "$f"; done
if [[ $cxx_runtime -eq 1 ]]; then
  # The libstdc++ (and its libgcc_s) the trainer was linked with, and the highest GLIBCXX version
  # our files need: `run` compares that with the host's libstdc++.
  mkdir -p "$out/lib/cxx"
  for name in libstdc++.so.6 libgcc_s.so.1; do
    path=$(ldd "$torch_trainer" | awk -v n="$name" '$1 == n {print $3}')
    [[ -f $path ]] || { echo "gpu-bundle.sh: ldd finds no $name for $torch_trainer" >&2; exit 3; }
    cp -L "$path" "$out/lib/cxx/$name"
  done
  need=$(packaging/check-floor.sh "$out/streetgan-trainer" | sed -n 's/^GLIBCXX \([0-9.]*\).*/\1/p')
  need2=$(packaging/check-floor.sh "$out/streetgan-trainer-torch" | sed -n 's/^GLIBCXX \([0-9.]*\).*/\1/p')
  need=$(printf '%s\n%s\n' "$need" "$need2" | sort -V | tail -n 1)
  echo "GLIBCXX_$need" >"$out/lib/cxx/needs"
fi
strip --strip-unneeded "$out/streetgan-trainer" "$out/streetgan-trainer-torch" "$out"/lib/*.so* 2>/dev/null || true

cat >"$out/run" <<'EOF'
#!/usr/bin/env bash
# Runs the bundled streetgan-trainer against this machine's PyTorch (its torch/lib and the CUDA
# libraries pip installed beside it). STREETGAN_PYTHON picks the Python (default python3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${STREETGAN_PYTHON:-python3}
# find_spec, not import: no CUDA start-up for each command (ls, attach, control run often).
site=${STREETGAN_TORCH_SITE:-$("$py" -c 'import importlib.util, os; s = importlib.util.find_spec("torch"); print(os.path.dirname(os.path.dirname(s.origin)) if s else "")' 2>/dev/null || true)}
[[ -n $site && -d $site/torch ]] ||
  { echo "run: $py has no torch: set STREETGAN_PYTHON to the Python of your PyTorch environment" >&2; exit 2; }
libs=$site/torch/lib
for d in "$site"/nvidia/*/lib; do [[ -d $d ]] && libs=$libs:$d; done
# A bundled libstdc++ (lib/cxx) goes first only where the host's lacks what the trainer needs: the
# newer of the two serves torch as well as the trainer.
if [[ -f $here/lib/cxx/needs ]]; then
  need=$(cat "$here/lib/cxx/needs")
  # awk reads to the end: leaving early would kill ldconfig with SIGPIPE, which pipefail and set -e
  # turn into an exit of this script (status 141, no output) whenever ldconfig had more to write.
  host=$({ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ && !p {p = $NF} END {print p}')
  [[ -n $host ]] && grep -qa "$need" "$host" || libs=$here/lib/cxx:$libs
fi
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
exec "$here/streetgan-trainer" "$@"
EOF
chmod +x "$out/run"

bytes=$(du -sb "$out" | cut -f1)
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "gpu-bundle.sh: $out: $mb MB ($(ls "$out/lib" | wc -l) libraries besides the trainer)"
if awk -v b="$bytes" -v m="$max_mb" 'BEGIN { exit !(b > m * 1e6) }'; then
  echo "gpu-bundle.sh: over $max_mb MB; the largest parts:" >&2
  du -b "$out/streetgan-trainer" "$out/streetgan-trainer-torch" "$out"/lib/* | sort -rn | head -12 | awk '{ printf "  %7.1f MB  %s\n", $1 / 1e6, $2 }' >&2
  exit 4
fi

if [[ -n $tar_dir ]]; then
  floors=$(packaging/check-floor.sh "$out")
  floor=$(sed -n 's/^GLIBC \([0-9.]*\).*/\1/p' <<<"$floors")
  [[ -n $floor ]] || { echo "gpu-bundle.sh: packaging/check-floor.sh found no GLIBC need in $out" >&2; exit 3; }
  # The host's libstdc++ serves the bundle (none is carried): its GLIBCXX floor goes into the name too.
  cxx=$(sed -n 's/^GLIBCXX \([0-9.]*\).*/\1/p' <<<"$floors")
  [[ -e $out/lib/cxx/libstdc++.so.6 || -z $cxx ]] || cxx_part=-glibcxx$cxx
  mkdir -p "$tar_dir"
  tarball=$(cd "$tar_dir" && pwd)/streetgan-trainer-bundle-torch$libtorch-glibc$floor${cxx_part:-}-x86_64.tar.gz
  # One top folder, so that an unpacked bundle is one folder wherever it lands.
  tar -czf "$tarball.tmp" --owner=0 --group=0 --transform 's,^\.,streetgan-trainer-bundle,' -C "$out" .
  mv -f "$tarball.tmp" "$tarball"
  echo "$tarball"
fi
