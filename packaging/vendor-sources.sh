#!/usr/bin/env bash
# The libraries a host build of the lean trainer needs, as sources, into DEST (the source archive's
# third_party/, which cmake/Vendored.cmake builds with -DSTREETGAN_VENDORED=ON), so that a GPU box
# needs only a C++17 compiler and its Python torch (docs/remote-setup.md, "Host build"):
#   compiled from source: zlib, libdeflate, giflib, libimagequant (2.17, the last C version) and
#     expat, from Debian 12's source packages with Debian's patches applied (dpkg-source -x);
#   header-only: CLI11, nlohmann-json, Gloo's headers (this machine's Debian 12 packages, which
#     packaging/install-deps.sh installs), cpp-httplib's single header (its source package: the
#     binary package is a compiled library);
#   headers only: curl's public headers (the trainer then links the host's own libcurl.so.4, which
#     every dnf/apt system carries; without one, S3 is left out of the build and says so).
# Not vendored, left out of a vendored build instead: OpenCV, libarchive, FFmpeg, libwebp (photos
# and MP4/WebP export, as in the GPU bundle), libssh (`remote`, several hosts) and OpenSSL
# (SHA-256 then comes from base/util/Sha256).
# Each library's licence goes with it (DEST/<name>/LICENSE, or the Debian copyright file).
# Usage: packaging/vendor-sources.sh DEST   (DEST is replaced; sources cached in
#   ${STREETGAN_CACHE_DIR:-~/.cache/streetgan}/vendor-sources; needs dpkg-source (dpkg-dev))
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
dest=${1:?usage: packaging/vendor-sources.sh DEST}
command -v dpkg-source >/dev/null || { echo "vendor-sources.sh: dpkg-source is missing: apt install dpkg-dev" >&2; exit 2; }
for f in /usr/include/CLI/CLI.hpp /usr/include/nlohmann/json.hpp /usr/include/gloo/config.h; do
  [[ -f $f ]] || { echo "vendor-sources.sh: $f is missing: packaging/install-deps.sh installs it" >&2; exit 2; }
done
cache=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/vendor-sources
packages=(zlib libdeflate giflib libimagequant expat curl cpp-httplib)
mkdir -p "$cache"
missing=()
for p in "${packages[@]}"; do compgen -G "$cache/${p}_*.dsc" >/dev/null || missing+=("$p"); done
[[ ${#missing[@]} -eq 0 ]] || "$src/packaging/chroot.sh" download bookworm "$cache" --source "${missing[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in "${packages[@]}"; do
  dsc=$(ls "$cache/${p}"_*.dsc | sort -V | tail -n 1)
  dpkg-source --no-check -x "$dsc" "$work/$p" >/dev/null || { echo "vendor-sources.sh: cannot unpack $dsc" >&2; exit 3; }
  basename "$dsc" .dsc | sed 's/_/ /' >>"$work/versions"
done

rm -rf "$dest.new"
mkdir -p "$dest.new/include" "$dest.new/licenses"
out=$dest.new
# copy NAME FROM FILES...: FILES (relative to the unpacked FROM) into OUT/NAME, keeping folders.
copy() {
  local name=$1 from=$2; shift 2
  mkdir -p "$out/$name"
  (cd "$work/$from" && cp --parents "$@" "$out/$name/")
}
copy zlib zlib adler32.c compress.c crc32.c deflate.c gzclose.c gzlib.c gzread.c gzwrite.c infback.c inffast.c inflate.c \
  inftrees.c trees.c uncompr.c zutil.c crc32.h deflate.h gzguts.h inffast.h inffixed.h inflate.h inftrees.h trees.h zconf.h zlib.h \
  zutil.h LICENSE
copy libdeflate libdeflate libdeflate.h common_defs.h COPYING $(cd "$work/libdeflate" && ls lib/*.c lib/*.h lib/x86/*.c lib/x86/*.h)
copy giflib giflib dgif_lib.c egif_lib.c gif_err.c gif_font.c gif_hash.c gifalloc.c openbsd-reallocarray.c quantize.c \
  gif_hash.h gif_lib.h gif_lib_private.h COPYING
copy libimagequant libimagequant libimagequant.c blur.c kmeans.c mediancut.c mempool.c nearest.c pam.c \
  libimagequant.h blur.h kmeans.h mediancut.h mempool.h nearest.h pam.h COPYRIGHT
copy expat expat/expat COPYING $(cd "$work/expat/expat" && ls lib/*.c lib/*.h)
cp -r "$work/curl/include/curl" "$out/include/"
rm -f "$out/include/curl/Makefile."*
cp "$work/curl/COPYING" "$out/licenses/curl"
cp "$work/cpp-httplib/httplib.h" "$out/include/"
cp "$work/cpp-httplib/LICENSE" "$out/licenses/cpp-httplib"
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/gloo "$out/include/"
cp /usr/share/doc/libcli11-dev/copyright "$out/licenses/cli11"
cp /usr/share/doc/nlohmann-json3-dev/copyright "$out/licenses/nlohmann-json"
cp /usr/share/doc/libgloo-dev/copyright "$out/licenses/gloo"
{
  echo "# third_party: sources for a host build of the lean trainer"
  echo
  echo "Made by packaging/vendor-sources.sh for cmake/Vendored.cmake (-DSTREETGAN_VENDORED=ON, which"
  echo "packaging/build-trainer.sh passes when this folder is there). Not part of the git tree."
  echo
  echo "From Debian 12's source packages (Debian's patches applied):"
  echo
  sed 's/^/- /' "$work/versions"
  echo
  echo "Header-only, from Debian 12's packages on the machine that made the archive:"
  echo
  for p in libcli11-dev nlohmann-json3-dev libgloo-dev; do echo "- $p $(dpkg-query -W -f '${Version}' "$p")"; done
} >"$out/README.md"
rm -rf "$dest"
mv "$out" "$dest"
echo "$dest"
