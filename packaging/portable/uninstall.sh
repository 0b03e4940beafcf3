#!/bin/sh
# Removes what install.sh installed for the current user: the versions under
# ~/.local/share/streetgan-portable, the links in ~/.local/bin (only if they point there), the menu
# entry and the icons. Runs, settings and caches (~/.config/streetgan, ~/.local/share/streetgan)
# are kept.
# Usage: ./uninstall.sh [--prefix DIR]   (the prefix given to install.sh)
set -eu
prefix=$HOME/.local
if [ "${1:-}" = --prefix ]; then prefix=${2:?--prefix needs a folder}; fi
data=${XDG_DATA_HOME:-$prefix/share}
[ "$prefix" = "$HOME/.local" ] || data=$prefix/share
home=$data/streetgan-portable
for p in streetgan streetgan-trainer; do
  case $(readlink "$prefix/bin/$p" 2>/dev/null) in "$home"/*) rm -f "$prefix/bin/$p" ;; esac
done
rm -f "$data/applications/org.streetgan.Studio.desktop"
for f in "$data"/icons/hicolor/*/apps/streetgan.png "$data/icons/hicolor/scalable/apps/streetgan.svg"; do rm -f "$f"; done
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" 2>/dev/null || true
rm -rf "$home"
echo "removed StreetGAN Studio from $home (runs and settings are kept)"
