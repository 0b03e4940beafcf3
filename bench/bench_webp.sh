#!/usr/bin/env bash
# Animated WebP against GIF at equal quality (issue 42 item 2): one latent-walk session (default:
# the explorer's demo walk) rendered by `streetgan-trainer render` three times, as a PNG sequence
# (the true frames), as a GIF and as an animated WebP; bench/webp_compare.py decodes both back with
# Pillow (frames expanded by their durations, so merged frames count as shown) and prints bytes,
# mean PSNR against the true frames and playing time of each, and WebP bytes / GIF bytes.
# WebP is smaller at equal quality when the ratio is below 1 with a PSNR at least the GIF's.
# Environment:
#   BENCH_SESSION        the session (default: resources/demo/walk.json)
#   STREETGAN_TRAINER    the trainer (default: build/release/app/streetgan-trainer)
#   BENCH_RESULTS_DIR    where the JSON goes (default: bench/results)
set -euo pipefail
export LC_ALL=C
me=bench_webp.sh
source "$(dirname "$0")/bench_common.sh"
session=${BENCH_SESSION:-$root/resources/demo/walk.json}
results=${BENCH_RESULTS_DIR:-$here/results}
[[ -x $trainer ]] || die "$trainer is missing: cmake --build --preset release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for out in frames walk.gif walk.webp; do
    XDG_CACHE_HOME=$work/cache "$trainer" render --session "$session" --out "$work/$out" >/dev/null ||
        die "render --out $out failed (a build without libwebp says so above: install libwebp-dev and rebuild)"
done
mkdir -p "$results"
json=$results/webp-$(date +%Y%m%d-%H%M%S).json
"$py" "$here/webp_compare.py" "$work/frames" "$work/walk.gif" "$work/walk.webp" "$json" "$session"
