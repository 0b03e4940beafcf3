#!/bin/sh
# Installs this portable StreetGAN Studio for the current user, without root:
#   ~/.local/share/streetgan-portable/<version>/   this folder, copied (the previous version stays
#                                                  until the new one is complete, then is removed)
#   ~/.local/share/streetgan-portable/current      a link to it, switched in one rename
#   ~/.local/bin/streetgan, streetgan-trainer      links to current/bin/
#   ~/.local/share/applications/org.streetgan.Studio.desktop, ~/.local/share/icons/hicolor/...
# Run it again to update; uninstall.sh removes all of it.
# Usage: ./install.sh [--prefix DIR]   (default: ~/.local; XDG_DATA_HOME is honoured)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=$HOME/.local
if [ "${1:-}" = --prefix ]; then prefix=${2:?--prefix needs a folder}; fi
data=${XDG_DATA_HOME:-$prefix/share}
[ "$prefix" = "$HOME/.local" ] || data=$prefix/share
version=$(sed -n 's/^version=//p' "$here/share/streetgan/VERSION")
home=$data/streetgan-portable
dest=$home/$version

# The launcher's own checks (glibc, libstdc++, x86_64 Linux) before anything is written.
"$here/bin/streetgan-trainer" --version >/dev/null || { echo "install.sh: this system cannot run StreetGAN Studio (the line above says why); nothing was installed" >&2; exit 1; }

mkdir -p "$home" "$prefix/bin" "$data/applications"
if [ "$here" != "$dest" ]; then
  rm -rf "$dest.new"
  cp -a "$here" "$dest.new"
  rm -rf "$dest"
  mv "$dest.new" "$dest"
fi
ln -sfn "$version" "$home/current.new"
mv -T "$home/current.new" "$home/current"
for p in streetgan streetgan-trainer; do ln -sfn "$home/current/bin/$p" "$prefix/bin/$p"; done
sed "s|^Exec=streetgan|Exec=$home/current/bin/streetgan|" "$home/current/share/streetgan/org.streetgan.Studio.desktop" >"$data/applications/org.streetgan.Studio.desktop.new"
mv "$data/applications/org.streetgan.Studio.desktop.new" "$data/applications/org.streetgan.Studio.desktop"
for d in "$home/current/share/streetgan/icons/hicolor"/*/apps; do
  size=$(basename "$(dirname "$d")")
  mkdir -p "$data/icons/hicolor/$size/apps"
  cp "$d"/* "$data/icons/hicolor/$size/apps/"
done
mkdir -p "$data/icons/hicolor/scalable/apps"
cp "$home/current/share/streetgan/streetgan.svg" "$data/icons/hicolor/scalable/apps/streetgan.svg"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" 2>/dev/null || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" 2>/dev/null || true
# Older versions, now that the new one is in place.
for old in "$home"/*; do
  case $(basename "$old") in current|"$version") ;; *) rm -rf "$old" ;; esac
done
echo "installed StreetGAN Studio $version in $dest"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on PATH; start it from the menu, or as $prefix/bin/streetgan" ;; esac
