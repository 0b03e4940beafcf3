#!/usr/bin/env bash
# Installs every Debian 12 package that StreetGAN Studio's build, app, tests and benchmarks need.
# Idempotent; Debian's archive only (nothing is fetched from anywhere else).
# Usage: packaging/install-deps.sh [--no-update] [--bench]
#   --bench  also the load generator the benchmarks use (wrk)
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: not root and no sudo: run this script as root" >&2; exit 1
  fi
fi

PACKAGES=(
  # toolchain (ccache: rebuilds of the same sources, e.g. CI after a session, from its cache; lld:
  # links the large LibTorch binaries several times faster than ld.bfd)
  build-essential cmake ninja-build pkg-config git ccache lld
  # the formatting gate (tools/check-format.sh: Debian 12's clang-format 14) and clang-tidy
  clang-format clang-tidy
  # the `cuda` preset: pip downloads torch 2.11's wheel (packaging/fetch-torch.sh), unzip unpacks it;
  # the TensorBoard fixtures get pip's tensorboard in a venv (tests/python/tb-env.sh)
  python3-pip python3-venv unzip
  # core: tensors, images, config, CLI
  # photos: libjpeg-turbo (its scaled IDCT) and libpng decode; libarchive only for bzip2/xz/zstd
  # tars; OpenCV only in the tests, as the independent decoder and resizer
  libtorch-dev libjpeg62-turbo-dev libpng-dev libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev
  nlohmann-json3-dev libcli11-dev zlib1g-dev libarchive-dev libdeflate-dev
  # distributed training: headers of Gloo, the CPU backend of c10d (libtorch links libgloo0)
  libgloo-dev
  # OpenBLAS (OpenMP build, like LibTorch) replaces the reference BLAS through update-alternatives:
  # Debian's LibTorch does transposed convolutions through BLAS, about 6x faster with it
  libopenblas0-openmp
  # remote: SSH client and SFTP (libssh 0.10); GIF export (giflib + libimagequant); gallery HTTP server
  libssh-dev libgif-dev libimagequant-dev libcpp-httplib-dev
  # training from S3 (core/base/s3): libcurl (OpenSSL flavour, as libssh and libcrypto already are)
  # signs requests with its built-in AWS SigV4 (7.75+); expat parses ListObjectsV2's XML
  libcurl4-openssl-dev libexpat1-dev
  # video export: Debian's FFmpeg libraries; animated WebP export: libwebp (its mux library)
  libavcodec-dev libavformat-dev libswscale-dev libavutil-dev libwebp-dev
  # desktop app: Qt 6 Widgets (and D-Bus for notifications), QCustomPlot for Qt 6, SVG export;
  # Xvfb and ImageMagick for GUI tests, dbus-daemon for the notification tests' private session bus
  qt6-base-dev libqcustomplot-dev libqcustomplot2.1-qt6 qt6-svg-dev libgl-dev xvfb xauth imagemagick dbus-daemon
  # tests: GoogleTest, Python PyTorch for fixtures written and read by the reference implementation
  libgtest-dev libgmock-dev python3 python3-torch python3-numpy
  # tests: real OpenSSH servers on loopback (remote), SciPy for the FID reference, Pillow to read
  # GIFs back, headless Chromium for the gallery page
  openssh-server openssh-client python3-scipy python3-pil chromium fonts-dejavu-core
  # tests: a real one-machine Slurm cluster (controller, node daemon, client commands, munge authentication),
  # started by the tests themselves on their own ports and folders (tests/support/SlurmCluster)
  slurmctld slurmd slurm-client munge
  # tests: the reference project's gallery API and image utilities, run side by side with `serve`
  python3-flask python3-torchvision
  # packages (packaging/build-debs.sh) and their checks; patchelf: the GPU bundle (packaging/gpu-bundle.sh)
  dpkg-dev lintian desktop-file-utils appstream patchelf
  # chroots of Debian 11 and 13 for the checks of other systems (packaging/chroot.sh)
  mmdebstrap
)

update=1
for arg in "$@"; do
  case "$arg" in
    --no-update) update=0 ;;
    --bench) PACKAGES+=(wrk) ;;
    *) echo "install-deps: unknown option '$arg' (use --no-update, --bench)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$update" -eq 1 ]; then
  $SUDO apt-get update -q
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
