#!/usr/bin/env bash
# Inversion (issue 44 item 1): PSNR, SSIM and seconds per image of `streetgan-trainer invert`, its
# default method against plain z optimisation (`--plain`: one random start, pixel MSE alone,
# constant learning rate) given the same generator steps (forward and backward passes of one image,
# every restart counted: the default run's "generator_steps"), on
# three held-out sets of 64 px targets for the demo naive-64 checkpoint:
#   generated  images the generator itself made from seeds 900000.. (render of a seed keyframe):
#              a z that reproduces them exactly exists (the known-z case)
#   synthetic  street scenes from `data synth` with a seed training never used (640x480 JPEGs,
#              centre-cropped and resized as training does)
#   photos     crops of real photographs (bench/make_photo_fixture.py, 128 px, its own seed)
# One image at a time, on BENCH_INVERT_THREADS threads (default 2). A benchmark: it never fails on
# a value, only when a run fails. Writes bench/results/invert-<date>-<time>.md: per image and mean
# per set, and the commands; prints the means.
#
# Environment (optional): BENCH_INVERT_CHECKPOINT (default resources/demo/naive-64-synthetic.pt),
# BENCH_INVERT_COUNT (images per set, default 6), BENCH_INVERT_THREADS (2), BENCH_INVERT_FLAGS
# (more flags for the default method, e.g. "--steps 300"), BENCH_INVERT_SETS (default
# "generated synthetic photos"), STREETGAN_TRAINER, STREETGAN_PYTHON, BENCH_RESULTS_DIR.
set -euo pipefail
export LC_ALL=C
me=bench_invert.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
# OpenMP's threads sleep while they wait (the default spins): on a machine with other work, two
# spinning threads slowed an inversion sevenfold here.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

ck=${BENCH_INVERT_CHECKPOINT:-$root/resources/demo/naive-64-synthetic.pt}
count=${BENCH_INVERT_COUNT:-6}
threads=${BENCH_INVERT_THREADS:-2}
read -r -a flags <<<"${BENCH_INVERT_FLAGS:-}"
read -r -a sets <<<"${BENCH_INVERT_SETS:-generated synthetic photos}"
[[ $count =~ ^[0-9]+$ ]] && ((count >= 1)) || die "BENCH_INVERT_COUNT wants a whole number >= 1, not '$count'"
[[ -f $ck ]] || die "checkpoint '$ck' does not exist"
[[ -x $trainer ]] || die "no trainer at $trainer: build it first (cmake --build --preset release)"
results=${BENCH_RESULTS_DIR:-$root/bench/results}
mkdir -p "$results"
stamp=$(date -u +%Y%m%d-%H%M%S)
md=$results/invert-$stamp.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The targets: one folder per set, `count` images each.
# Generated targets are rendered at 256 px with nearest upscaling: for a model of 32, 64, 128 or
# 256 px an integer factor, which the inverter's area resize takes back to G's exact pixels.
for set in "${sets[@]}"; do
    mkdir -p "$work/$set"
    case $set in
        generated)
            for ((i = 0; i < count; i++)); do
                printf '{"checkpoint": "%s", "keyframes": [{"seed": %d}], "loop": false, "size": 256, "padding": 0}\n' "$ck" $((900000 + i)) >"$work/s.json"
                "$trainer" render --session "$work/s.json" --out "$work/$set/$(printf %02d "$i").png" >/dev/null
            done ;;
        synthetic)
            "$trainer" data synth --count "$count" --seed 424242 --out "$work/synth" >/dev/null
            for f in "$work"/synth/synthetic/*.jpg; do n=$(basename "$f" .jpg); mv "$f" "$work/$set/$(printf %02d "$n").jpg"; done ;;
        photos)
            "$py" "$root/bench/make_photo_fixture.py" --out "$work/fixture" --size 128 --count "$count" --seed 7 >/dev/null
            mv "$work"/fixture/images/* "$work/$set/" ;;
        *) die "unknown set '$set' in BENCH_INVERT_SETS (generated, synthetic, photos)" ;;
    esac
done

# One row per image: set, image, then PSNR, SSIM, seconds of the default method and of plain.
rows=$work/rows.tsv
: >"$rows"
for set in "${sets[@]}"; do
    for img in "$work/$set"/*; do
        ours=$("$trainer" invert --checkpoint "$ck" --image "$img" --threads "$threads" --json "${flags[@]}" 2>/dev/null)
        budget=$(jq -r '.generator_steps' <<<"$ours")
        plain=$("$trainer" invert --checkpoint "$ck" --image "$img" --threads "$threads" --json --plain --steps "$budget" 2>/dev/null)
        printf '%s\t%s\t%s\t%s\t%s\n' "$set" "$(basename "$img")" "$(jq -r '[.psnr, .ssim, .seconds] | @tsv' <<<"$ours")" \
            "$(jq -r '[.psnr, .ssim, .seconds] | @tsv' <<<"$plain")" "$budget" >>"$rows"
        echo "$set $(basename "$img"): ours $(jq -r '"\(.psnr*100|round/100) dB, SSIM \(.ssim*1000|round/1000), \(.seconds*10|round/10) s"' <<<"$ours");" \
            "plain $(jq -r '"\(.psnr*100|round/100) dB, SSIM \(.ssim*1000|round/1000), \(.seconds*10|round/10) s"' <<<"$plain")" >&2
    done
done

{
    echo "# Inversion: default method against plain z optimisation ($stamp)"
    echo
    echo "Checkpoint \`$(realpath --relative-to="$root" "$ck" 2>/dev/null || echo "$ck")\`, $threads threads, $(nproc) cores" \
        "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $count images per set; plain gets the default run's generator steps."
    echo "Default flags: \`invert --threads $threads ${flags[*]:-}\`; plain: \`invert --threads $threads --plain --steps <generator steps>\`."
    echo
    echo "| set | image | ours PSNR dB | ours SSIM | ours s | plain PSNR dB | plain SSIM | plain s |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' '{ printf "| %s | %s | %.2f | %.3f | %.1f | %.2f | %.3f | %.1f |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$rows"
    echo
    echo "Means per set:"
    echo
    echo "| set | images | ours PSNR dB | ours SSIM | ours s | plain PSNR dB | plain SSIM | plain s |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' '{ n[$1]++; for (k = 3; k <= 8; k++) s[$1, k] += $k; if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1 } }
        END { for (i = 1; i <= m; i++) { x = order[i]; printf "| %s | %d | %.2f | %.3f | %.1f | %.2f | %.3f | %.1f |\n", x, n[x],
              s[x,3]/n[x], s[x,4]/n[x], s[x,5]/n[x], s[x,6]/n[x], s[x,7]/n[x], s[x,8]/n[x] } }' "$rows"
} >"$md"
sed -n '/^Means per set/,$p' "$md"
echo "$me: wrote $md"
