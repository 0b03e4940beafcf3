#!/usr/bin/env bash
# The Debian packages, checked and used as a user would (ctest `packaging_debs`, label slow):
# packaging/build-debs.sh built streetgan and streetgan-trainer from this build into DEBS_DIR (the
# `debs` fixture, tests/packaging/CMakeLists.txt); lintian,
# desktop-file-validate and appstreamcli check them; apt resolves their dependencies (simulated);
# both are unpacked into a fresh root, where the installed streetgan-trainer runs a tiny training
# run and `sample`, and the installed streetgan starts offscreen to its first window.
# Usage: test_debs.sh SOURCE_DIR DEBS_DIR
set -euo pipefail
src=$1
debs_dir=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/streetgan-debs-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

shopt -s nullglob
debs=("$debs_dir"/*.deb)
studio= trainer=
for d in "${debs[@]}"; do
  case $(basename "$d") in
    streetgan_*.deb) studio=$d ;;
    streetgan-trainer_*.deb) trainer=$d ;;
  esac
done
[[ -f $studio && -f $trainer && ${#debs[@]} -eq 2 ]] || fail "expected the two packages in $debs_dir, found: ${debs[*]}"
echo "packages: $studio $trainer"

version=$(dpkg-deb -f "$trainer" Version)
[[ $(dpkg-deb -f "$studio" Version) == "$version" ]] || fail "the two packages have different versions"
deps_trainer=$(dpkg-deb -f "$trainer" Depends)
deps_studio=$(dpkg-deb -f "$studio" Depends)
echo "streetgan-trainer Depends: $deps_trainer"
echo "streetgan Depends: $deps_studio"
[[ $deps_trainer == *libtorch* && $deps_trainer == *libssh* ]] || fail "streetgan-trainer's Depends lack the shlibdeps of LibTorch and libssh"
[[ $deps_trainer != *libqt* ]] || fail "streetgan-trainer depends on Qt"
[[ $deps_studio == *"streetgan-trainer (= $version)"* && $deps_studio == *libqt6widgets6* ]] || fail "streetgan's Depends lack streetgan-trainer (= $version) or Qt"

# lintian: errors and warnings fail; the few tags we accept are overridden inside the packages,
# each with its reason (packaging/lintian/).
if command -v lintian >/dev/null; then
  lintian --fail-on error,warning --allow-root --tag-display-limit 0 "$trainer" "$studio" || fail "lintian (above)"
else
  echo "lintian not installed: skipping that check (apt install lintian)"
fi

# apt resolves both packages' dependencies against this machine's packages (nothing installed).
apt-get install -s -q "$trainer" "$studio" >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log"; fail "apt cannot install the packages"; }

root=$tmp/root
dpkg-deb -x "$trainer" "$root"
dpkg-deb -x "$studio" "$root"
for f in usr/bin/streetgan usr/bin/streetgan-trainer usr/libexec/streetgan/streetgan-trainer-torch usr/share/man/man1/streetgan.1.gz usr/share/man/man1/streetgan-trainer.1.gz \
         usr/share/bash-completion/completions/streetgan-trainer usr/share/applications/org.streetgan.Studio.desktop \
         usr/share/metainfo/org.streetgan.Studio.metainfo.xml usr/share/icons/hicolor/scalable/apps/streetgan.svg \
         usr/share/icons/hicolor/48x48/apps/streetgan.png usr/share/icons/hicolor/256x256/apps/streetgan.png \
         usr/share/doc/streetgan/copyright usr/share/doc/streetgan-trainer/copyright \
         usr/share/streetgan/remote/streetgan-trainer.deb usr/share/streetgan/remote/streetgan-source.tar.gz; do
  [[ -e $root/$f ]] || fail "$f is not in the packages"
done
desktop-file-validate "$root/usr/share/applications/org.streetgan.Studio.desktop" || fail "desktop-file-validate"
appstreamcli validate --no-net "$root/usr/share/metainfo/org.streetgan.Studio.metainfo.xml" || fail "appstreamcli validate"
if dpkg-deb -c "$trainer" | grep -q 'usr/share/\(applications\|icons\)'; then fail "desktop files in streetgan-trainer"; fi
# What the app uploads to set up a remote host: this very trainer package, and source that builds
# the same version.
cmp -s "$trainer" "$root/usr/share/streetgan/remote/streetgan-trainer.deb" || fail "the app's package carries another trainer package"
[[ $(tar -xzOf "$root/usr/share/streetgan/remote/streetgan-source.tar.gz" streetgan-source/VERSION) == "$version" ]] || fail "the source tarball's VERSION is not $version"
tar -tzf "$root/usr/share/streetgan/remote/streetgan-source.tar.gz" streetgan-source/packaging/build-trainer.sh >/dev/null || fail "the source tarball lacks packaging/build-trainer.sh"
# The libraries a host build takes from it (packaging/vendor-sources.sh), each with its licence.
for f in third_party/README.md third_party/zlib/zlib.h third_party/zlib/LICENSE third_party/expat/lib/xmlparse.c third_party/expat/COPYING \
         third_party/include/curl/curl.h third_party/licenses/curl third_party/include/httplib.h third_party/include/gloo/config.h; do
  tar -tzf "$root/usr/share/streetgan/remote/streetgan-source.tar.gz" "streetgan-source/$f" >/dev/null || fail "the source tarball lacks $f"
done

# The installed trainer: its version is the package's; a tiny run, then a grid from its checkpoint.
export HOME=$tmp/home XDG_CACHE_HOME=$tmp/home/cache XDG_CONFIG_HOME=$tmp/home/config XDG_DATA_HOME=$tmp/home/data
mkdir -p "$HOME"
"$root/usr/bin/streetgan-trainer" --version | tee "$tmp/version.txt"
grep -qF "streetgan-trainer $version " "$tmp/version.txt" || fail "--version does not print the package version $version"
"$root/usr/bin/streetgan-trainer" train --run-dir "$tmp/run" --preset tiny-32 --data synthetic --batch 8 --steps 4 \
  --log-every 1 --sample-every 4 --checkpoint-every 4 --device cpu >"$tmp/train.log" 2>&1 || { cat "$tmp/train.log"; fail "installed trainer: train"; }
ck=$(ls "$tmp"/run/checkpoints/*.pt | head -n 1)
[[ -n $ck ]] || fail "the tiny run wrote no checkpoint"
# The front (usr/bin) runs ls, attach, control and remote without LibTorch; the rest in libexec's.
if readelf -d "$root/usr/bin/streetgan-trainer" | grep -q 'NEEDED.*libtorch'; then fail "usr/bin/streetgan-trainer links LibTorch"; fi
"$root/usr/bin/streetgan-trainer" ls --json "$tmp" | grep -q '"finished"' || fail "installed trainer: ls --json does not list the finished tiny run"
python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))[\"version\"] != sys.argv[2])" "$tmp/run/run.json" "$version" || fail "run.json does not carry version $version"
"$root/usr/bin/streetgan-trainer" sample --checkpoint "$ck" --seed 1 --count 4 --out "$tmp/grid.png" || fail "installed trainer: sample"
[[ $(head -c 8 "$tmp/grid.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "sample did not write a PNG"

# The installed app, offscreen, to its first window (grabbed to a PNG), finding its trainer beside it.
QT_QPA_PLATFORM=offscreen "$root/usr/bin/streetgan" --version | grep -qF "$version" || fail "streetgan --version does not print $version"
QT_QPA_PLATFORM=offscreen timeout 120 "$root/usr/bin/streetgan" --screenshot "$tmp/window.png" --delay 500 || fail "installed app did not start"
[[ $(stat -c %s "$tmp/window.png") -gt 1000 ]] || fail "the app's first window grab is empty"
echo "OK: $version"
