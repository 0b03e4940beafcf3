#!/usr/bin/env bash
# Latent-walk rendering: (a) single-frame latency of FrameRenderer (naive-64, batch 1, CPU, 1 and
# 2 intra-op threads; target: median <= 10 ms), (b) a 64-frame 256x256 GIF: GifWriter (defaults)
# against Pillow's GIF writer with the reference project's call on the same true frames: encode
# time, file size and mean PSNR against the true frames (target: PSNR >= Pillow's at no larger
# size, and faster).
# Compiles bench/bench_render.cpp against build/release's streetgan_ml and streetgan_cli (flags and link line
# taken from the configured build; the helper lands in build/release/bench-render/), runs it and
# bench/render_gif_reference.py, prints a table and writes JSON to
# bench/results/render-<date>-<time>.json. A benchmark, not a test: it fails only when a step fails.
#
# Environment (all optional):
#   BUILD_DIR            configured build (default: build/release; test_render_export must be built)
#   STREETGAN_PYTHON     Python with numpy and PIL (default: /usr/bin/python3)
#   BENCH_ITERS          latency iterations per thread count (default: 200)
#   BENCH_CHECKPOINT     checkpoint of part (b) (default: resources/demo/tiny-32-synthetic.pt)
#   BENCH_REPEATS        GIF encodes per side, median reported (default: 3)
#   BENCH_GIF_OPTIONS    our GifWriter options and the frames' upscale: "PALETTE DITHERING UPSCALE
#                        SPEED" (default: "per-frame 0 nearest 8", the session file's GIF defaults,
#                        which `render` passes to GifWriter, and its default nearest upscale;
#                        "global 1 nearest 4" is GifWriter's own defaults)
#   BENCH_RESULTS_DIR    where the JSON goes (default: bench/results)
set -euo pipefail
export LC_ALL=C

me=bench_render.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
    exit 0
fi
build=${BUILD_DIR:-$root/build/release}
py=${STREETGAN_PYTHON:-/usr/bin/python3}
iters=${BENCH_ITERS:-200}
ck=${BENCH_CHECKPOINT:-$root/resources/demo/tiny-32-synthetic.pt}
repeats=${BENCH_REPEATS:-3}
results=${BENCH_RESULTS_DIR:-$here/results}
[[ -f $build/tests/ml/test_render_export ]] || { echo "$me: $build/tests/ml/test_render_export is missing: cmake --build --preset release --target test_render_export" >&2; exit 1; }

# 1. Compile and link the helper like tests/ml/test_render_export (without GoogleTest).
out=$build/bench-render
mkdir -p "$out"
compile=$("$py" - "$build" "$root" <<'PY'
import json, sys, shlex
build, root = sys.argv[1], sys.argv[2]
e = next(c for c in json.load(open(build + "/compile_commands.json")) if c["file"].endswith("tests/ml/export/RenderExportTest.cpp"))
args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
keep, skip = [], False
for a in args:
    if skip: skip = False; continue
    if a in ("-o", "-c", "-MF", "-MT"): skip = True; continue
    if a == "-MD": continue
    keep.append(a)
print(shlex.join(keep + ["-c", root + "/bench/bench_render.cpp", "-o", build + "/bench-render/bench_render.o"]))
PY
)
pkgflags=$(pkg-config --cflags libavcodec libavformat libswscale libavutil)
(cd "$build" && eval "$compile $pkgflags")
link=$(cd "$build" && ninja -t commands tests/ml/test_render_export | tail -1 | sed -e 's/^: && //; s/ && cd .*$//' \
    -e 's#tests/ml/CMakeFiles/test_render_export.dir/export/RenderExportTest.cpp.o#bench-render/bench_render.o#' \
    -e 's#-o tests/ml/test_render_export#-o bench-render/bench_render#' -e 's#[^ ]*libgtest_main.a##g; s#[^ ]*libgtest.a##g')
(cd "$build" && eval "$link")
helper=$out/bench_render

# 2. Latency, then the GIF comparison.
lat1=$("$helper" latency 1 "$iters")
lat2=$("$helper" latency 2 "$iters")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
read -r -a gifopts <<< "${BENCH_GIF_OPTIONS:-per-frame 0 nearest 8}"
ours=$("$helper" gif "$ck" 64 256 "$work" "$repeats" "${gifopts[@]}")
cmp=$("$py" "$here/render_gif_reference.py" "$work/frames" "$work/ours.gif" "$work/pillow.gif" "$repeats")

mkdir -p "$results"
json=$results/render-$(date +%Y%m%d-%H%M%S).json
"$py" - "$lat1" "$lat2" "$ours" "$cmp" "$json" <<'PY'
import json, os, sys
lat1, lat2, ours, cmp = (json.loads(x) for x in sys.argv[1:5])
doc = {"latency_naive64_batch1": [lat1, lat2], "gif_64x256": {"ours": ours, "compare": cmp, "gif_options": os.environ.get("BENCH_GIF_OPTIONS", "per-frame 0 nearest 8")},
       "host": {"cpus": os.cpu_count(), "loadavg": os.getloadavg()}}
open(sys.argv[5], "w").write(json.dumps(doc, indent=2) + "\n")
print("(a) naive-64 single frame, batch 1, CPU")
for l in (lat1, lat2):
    print("    %d thread(s): median %.2f ms  (p10 %.2f, p90 %.2f; %d frames)" % (l["threads"], l["median_ms"], l["p10_ms"], l["p90_ms"], l["iters"]))
print("(b) GIF, %d frames at %dx%d (ours: %s)" % (ours["frames"], ours["size"], ours["size"], os.environ.get("BENCH_GIF_OPTIONS", "per-frame 0 nearest 8")))
print("    %-8s %10s %12s %10s" % ("writer", "encode s", "bytes", "PSNR dB"))
print("    %-8s %10.3f %12d %10.2f" % ("ours", ours["encode_s_median"], cmp["ours_bytes"], cmp["ours_psnr_db"]))
print("    %-8s %10.3f %12d %10.2f" % ("Pillow", cmp["pillow_encode_s_median"], cmp["pillow_bytes"], cmp["pillow_psnr_db"]))
print("JSON: " + sys.argv[5])
PY
