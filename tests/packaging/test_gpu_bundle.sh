#!/usr/bin/env bash
# The lean GPU bundle (packaging/gpu-bundle.sh) of the `cuda` preset's build: at most 40 MB with
# every library it loads inside it or torch's (the script fails otherwise), no OpenCV and no
# libarchive in it, and its trainer, run from the folder against this build's LibTorch (as the
# bundle's `run` does with the GPU machine's torch), reads photos: it writes a JPEG folder, lists it
# and a zip and a tar of it, and feeds the loader from each.
# Usage: test_gpu_bundle.sh SOURCE_DIR BUILD_DIR TRAINER TORCH_LIB_DIR
set -euo pipefail
src=$1 build=$2 trainer=$3 torch_lib=$4
out=$build/gpu-bundle-test
work=$(mktemp -d /tmp/sg-gpu-bundle.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "test_gpu_bundle: $*" >&2; exit 1; }

"$src/packaging/gpu-bundle.sh" "$out" --trainer "$trainer"
T() { LD_LIBRARY_PATH=$torch_lib "$out/streetgan-trainer" "$@"; }
T version --json | grep -F '"features":"photos, no-mp4, ssh, s3"' || fail "version --json: $(T version --json)"
if ls "$out/lib" | grep -E 'opencv|libarchive'; then fail "the bundle carries a library it must not (above)"; fi

T data synth --count 24 --out "$work/d" >/dev/null
(cd "$work/d" && python3 -m zipfile -c ../photos.zip synthetic && tar -cf ../photos.tar synthetic)
for data in "$work/d/synthetic" "$work/photos.zip" "$work/photos.tar"; do
  stats=$(T data stats "$data") || fail "data stats $data failed"
  grep -Eq '^total +24 ' <<<"$stats" && grep -q '^skipped: 0' <<<"$stats" || fail "data stats $data: $stats"
  bench=$(T bench loader --data "$data" --size 64 --threads 1 --batch 8 --seconds 0.5 --feed 60000 --json) || fail "bench loader $data failed"
  python3 - "$bench" "$data" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
assert j["images_per_s"] > 0 and j["images_per_core_s"] > 0 and j["cores_to_feed"] > 0, (sys.argv[2], j)
print(f"{sys.argv[2]}: {j['images_per_s']:.0f} img/s, {j['images_per_core_s']:.0f} per core, {j['cores_to_feed']:.1f} cores for 60k img/s")
PY
done
echo "test_gpu_bundle: passed"
