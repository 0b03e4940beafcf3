#!/usr/bin/env bash
# Makes the portable archive: the desktop app and the trainer with every library they load except
# the C library, the C++ runtime and the GPU/OpenGL driver, for any x86_64 Linux desktop with glibc
# 2.35 and GCC 12's libstdc++ or newer (Ubuntu 22.04 and newer, Debian 12 and 13, Fedora 36+).
# Made from the release build of this Debian 12 machine; prints the archive's path. The system
# provides OpenGL's dispatch libraries (libglvnd: libOpenGL, libGL, libEGL), as with its GPU driver.
#   streetgan-<version>-x86_64/
#     bin/streetgan, bin/streetgan-trainer   launchers: check the system, then exec libexec/
#     libexec/                               the programs (RUNPATH $ORIGIN/../lib) and qt.conf
#     lib/                                   their libraries; lib/qt6/plugins: Qt's plugins
#     share/                                 desktop entry, icons, metainfo, docs, remote/ (set-up files)
#     install.sh, uninstall.sh               no root: links in ~/.local/bin, menu entry and icons
# Why not Debian 12's libarchive and libexpat: they need GLIBC_2.36 (arc4random); Debian 11's builds
# of the same sonames (3.4.3, 2.2.10) need 2.28 and are taken instead (downloaded with apt from the
# bullseye suite of this machine's own Debian mirror, cached). libstdc++ and libgcc_s are the
# system's: Debian 12's need GLIBC_2.36 as well, and every target system has GCC 12's or newer.
# Usage: packaging/portable.sh OUT [--build DIR] [--bundles DIR] [--floor 2.35]
#   --build DIR    the release build (default build/release)
#   --bundles DIR  GPU bundles (packaging/gpu-bundle.sh --tar) to ship for the remote set-up
#   --floor V      the GLIBC floor to check every file against (default 2.35)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out= build=build/release bundles= floor=2.35
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --bundles) bundles=$2; shift 2 ;;
    --floor) floor=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "portable.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "portable.sh: usage: packaging/portable.sh OUT [--build DIR] [--bundles DIR] [--floor V]" >&2; exit 2; }
for p in streetgan streetgan-trainer streetgan-trainer-torch; do
  [[ -x $build/app/$p ]] || { echo "portable.sh: $build/app/$p is missing: build the release preset first (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
done
for t in patchelf dpkg-deb apt-get; do command -v $t >/dev/null || { echo "portable.sh: $t is missing: packaging/install-deps.sh installs it" >&2; exit 2; }; done

version=$("$build/app/streetgan-trainer" --version | sed -n 's/^streetgan-trainer \([^ ]*\).*/\1/p')
name=streetgan-$version-x86_64
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$out/.stage.$$
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root"/{bin,libexec,lib/qt6/plugins,share/streetgan/remote,share/doc/streetgan}

# What the target system provides: the C library, the C++ runtime and the driver stack.
system_lib() {
  case $(basename "$1") in
    libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libresolv.so.*|libutil.so.*|libanl.so.*|libmvec.so.*) return 0 ;;
    libstdc++.so.*|libgcc_s.so.*) return 0 ;;
    libGL.so.*|libGLX.so.*|libGLdispatch.so.*|libEGL.so.*|libOpenGL.so.*|libGLESv2.so.*|libgbm.so.*|libdrm.so.*|libcuda.so.*|libnvidia-*) return 0 ;;
  esac
  return 1
}

# Qt's plugins the app loads: the X11 (xcb) and Wayland platforms, offscreen, image formats, SVG icons.
qt_plugins=$(qtpaths6 --query QT_INSTALL_PLUGINS 2>/dev/null || echo /usr/lib/x86_64-linux-gnu/qt6/plugins)
for d in platforms xcbglintegrations imageformats iconengines platforminputcontexts wayland-shell-integration wayland-decoration-client wayland-graphics-integration-client; do
  [[ -d $qt_plugins/$d ]] && cp -r "$qt_plugins/$d" "$root/lib/qt6/plugins/"
done
cp "$build/app/streetgan" "$build/app/streetgan-trainer" "$build/app/streetgan-trainer-torch" "$root/libexec/"

# Every library the programs and plugins load, found by ldd on this machine.
missing=()
while read -r lname _ path _; do
  [[ $lname == /* ]] && path=$lname
  [[ $path == /* ]] || { [[ $lname == linux-vdso* ]] || missing+=("$lname"); continue; }
  system_lib "$path" && continue
  [[ -e $root/lib/$lname ]] || cp -L "$path" "$root/lib/$lname"
done < <(find "$root/libexec" "$root/lib/qt6/plugins" -type f -print0 | xargs -0 ldd 2>/dev/null | awk 'NF >= 2 && $1 !~ /:$/ {print $1, $2, $3, $4}' | sort -u)
[[ ${#missing[@]} -eq 0 ]] || { echo "portable.sh: libraries not found on this machine: ${missing[*]}" >&2; exit 3; }

# Debian 11's libarchive and libexpat (see the header), from the bullseye suite of this machine's mirror.
cache=${STREETGAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/streetgan}/bullseye-debs
older=(libarchive13 libexpat1)
if ! compgen -G "$cache/libarchive13_*.deb" >/dev/null || ! compgen -G "$cache/libexpat1_*.deb" >/dev/null; then
  packaging/chroot.sh download bullseye "$cache" "${older[@]}"
fi
for p in "${older[@]}"; do
  deb=$(compgen -G "$cache/${p}_*.deb" | sort -V | tail -n 1)
  x=$stage/x-$p
  dpkg-deb -x "$deb" "$x"
  for f in "$x"/usr/lib/x86_64-linux-gnu/*.so.* "$x"/lib/x86_64-linux-gnu/*.so.*; do
    [[ -f $f && ! -L $f ]] || continue
    soname=$(objdump -p "$f" | sed -n 's/^ *SONAME *//p')
    [[ -e $root/lib/$soname ]] && cp -L "$f" "$root/lib/$soname"
  done
done

# Each program and library finds the others through its RUNPATH; Qt finds its plugins through qt.conf.
for f in "$root"/libexec/streetgan*; do patchelf --set-rpath '$ORIGIN/../lib' "$f"; done
for f in "$root"/lib/*.so*; do patchelf --set-rpath '$ORIGIN' "$f"; done
find "$root/lib/qt6/plugins" -name '*.so' -exec patchelf --set-rpath '$ORIGIN/../../..' {} +
strip --strip-unneeded "$root"/libexec/streetgan* 2>/dev/null || true
printf '[Paths]\nPrefix=..\nPlugins=lib/qt6/plugins\n' >"$root/libexec/qt.conf"

# The launchers: one line for a system that cannot run it, else exec the program.
for p in streetgan streetgan-trainer; do
  cat >"$root/bin/$p" <<EOF
#!/bin/sh
# StreetGAN Studio, portable ($version): checks the system, then runs libexec/$p.
here=\$(cd "\$(dirname "\$(readlink -f "\$0")")/.." && pwd)
if [ "\$(uname -s)-\$(uname -m)" != Linux-x86_64 ]; then
  echo "$p: this build is for x86_64 Linux; this system is \$(uname -s) \$(uname -m)" >&2; exit 1
fi
g=\$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc //p')
if [ -z "\$g" ]; then
  echo "$p: needs the GNU C library $floor or newer (this system has none: musl?); use Ubuntu 22.04, Debian 12, Fedora 36 or newer" >&2; exit 1
fi
if [ "\$(printf '%s\\n%s\\n' "\$g" $floor | sort -V | head -n 1)" != $floor ]; then
  echo "$p: needs glibc $floor or newer, this system has \$g: use Ubuntu 22.04, Debian 12, Fedora 36 or newer (to train on an older machine, set the trainer up there from the app: docs/remote-setup.md)" >&2; exit 1
fi
# The loader's cache, read once for both checks below.
cache=\$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null)
for l in \$(printf '%s\\n' "\$cache" | sed -n 's/.*libstdc++\.so\.6 (libc6,x86-64) => //p' | head -n 1) /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/lib64/libstdc++.so.6; do
  [ -r "\$l" ] || continue
  grep -aq GLIBCXX_3.4.30 "\$l" || { echo "$p: needs libstdc++ from GCC 12 or newer (GLIBCXX_3.4.30; \$l is older): update the system's libstdc++6 / libstdc++ package" >&2; exit 1; }
  break
done
# OpenGL's dispatch libraries (libglvnd) are the desktop's, with its GPU driver; Qt and OpenCV load them.
gl=\$(printf '%s\\n' "\$cache" | grep -c -e 'libOpenGL\.so\.0 ' -e 'libGL\.so\.1 ' -e 'libEGL\.so\.1 ')
if [ "\$gl" -lt 3 ]; then
  echo "$p: needs the system's OpenGL libraries (libOpenGL.so.0, libGL.so.1, libEGL.so.1): sudo apt install libopengl0 libgl1 libegl1 (Debian, Ubuntu) or sudo dnf install libglvnd-opengl libglvnd-glx libglvnd-egl (Fedora)" >&2; exit 1
fi
exec "\$here/libexec/$p" "\$@"
EOF
  chmod 755 "$root/bin/$p"
done

# Desktop entry, icons, metainfo, the files the remote set-up uploads, docs.
cp resources/org.streetgan.Studio.desktop resources/org.streetgan.Studio.metainfo.xml resources/streetgan.svg "$root/share/streetgan/"
echo "version=$version" >"$root/share/streetgan/VERSION"
cp -r resources/icons "$root/share/streetgan/icons"
for f in "$build/remote/streetgan-trainer.deb" "$build/remote/streetgan-source.tar.gz"; do [[ -f $f ]] && cp "$f" "$root/share/streetgan/remote/"; done
if [[ -n $bundles ]]; then cp "$bundles"/streetgan-trainer-bundle-torch*-glibc*-x86_64.tar.gz "$root/share/streetgan/remote/" 2>/dev/null || true; fi
cp README.md LICENSE docs/desktop-app.md docs/cli.md docs/remote-setup.md "$root/share/doc/streetgan/" 2>/dev/null || cp README.md LICENSE "$root/share/doc/streetgan/"
cp packaging/portable/install.sh packaging/portable/uninstall.sh "$root/"
chmod 755 "$root/install.sh" "$root/uninstall.sh"

# The floor this archive promises, checked over every file in it.
packaging/check-floor.sh "$root" --glibc "$floor" --glibcxx 3.4.30 >"$stage/floor.txt" ||
  { cat "$stage/floor.txt"; echo "portable.sh: a file needs more than glibc $floor / GLIBCXX 3.4.30 (above)" >&2; exit 4; }
cp "$stage/floor.txt" "$root/share/doc/streetgan/FLOOR"

archive=$out/$name.tar.gz
tar -czf "$archive.tmp" --owner=0 --group=0 -C "$stage" "$name"
mv -f "$archive.tmp" "$archive"
echo "portable.sh: $(du -m "$archive" | cut -f1) MB, $(ls "$root/lib" | wc -l) libraries; $(tr '\n' ' ' <"$stage/floor.txt")" >&2
echo "$archive"
