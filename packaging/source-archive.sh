#!/usr/bin/env bash
# The source archive the app uploads to a host that builds its own trainer (RemoteTrainerSetup::
# buildFromSource, packaging/build-trainer.sh): the tracked files as in the working tree (uncommitted
# changes included), a VERSION file, and third_party/ (packaging/vendor-sources.sh), all under
# streetgan-source/. With third_party/ the host needs only a compiler and its Python torch.
# Usage: packaging/source-archive.sh OUT.tar.gz VERSION   (prints OUT.tar.gz)
set -euo pipefail
out=${1:?usage: packaging/source-archive.sh OUT.tar.gz VERSION} version=${2:?usage: packaging/source-archive.sh OUT.tar.gz VERSION}
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/streetgan-source-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/streetgan-source"
printf '%s\n' "$version" >"$work/VERSION"
tree=$(git stash create 2>/dev/null || true)
git archive --format=tar --prefix=streetgan-source/ --add-file="$work/VERSION" -o "$work/source.tar" "${tree:-HEAD}"
packaging/vendor-sources.sh "$work/streetgan-source/third_party" >/dev/null
tar --append -f "$work/source.tar" -C "$work" --owner=0 --group=0 --numeric-owner streetgan-source/third_party
gzip -9n <"$work/source.tar" >"$out.tmp"
mv -f "$out.tmp" "$out"
echo "$out"
