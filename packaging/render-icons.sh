#!/usr/bin/env bash
# Renders the app icon (resources/streetgan.svg) to the PNG sizes of the hicolor icon theme
# (resources/icons/hicolor/NxN/apps/streetgan.png), which the packages install beside the SVG.
# Run after changing the SVG and commit the PNGs (they are committed so that a build needs no SVG
# renderer). Needs rsvg-convert (apt install librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v rsvg-convert >/dev/null || { echo "render-icons.sh: rsvg-convert not found: apt install librsvg2-bin" >&2; exit 2; }
for n in 16 22 24 32 48 64 128 256 512; do
  mkdir -p "resources/icons/hicolor/${n}x${n}/apps"
  rsvg-convert -w "$n" -h "$n" resources/streetgan.svg -o "resources/icons/hicolor/${n}x${n}/apps/streetgan.png"
done
