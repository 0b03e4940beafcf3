#!/usr/bin/python3
"""A small training set of REAL photographs, made from photos that Debian packages ship inside
the package itself (no other download: this machine reaches only Debian's archive and PyPI).

The photos (outdoor, urban and street-like ones where there was a choice; see SOURCES below for
each one's package, author and licence) come from five packages:
  python3-sklearn              scikit-learn's sample images (china.jpg)
  python3-skimage              scikit-image's bundled data (camera, rocket, brick)
  mate-backgrounds             MATE's nature backgrounds (Storm: a road under storm clouds)
  lomiri-wallpapers-16.04      Ubuntu Touch wallpapers (landscapes, a house front)
  plasma-workspace-wallpapers  KDE Plasma wallpapers (architecture, boats, a path, a pier)
Each package is fetched with `apt-get download` (the ordinary client; as root an `apt-get update`
is run once when the package is unknown), only the named photos and the package's copyright file
are unpacked from it (`dpkg-deb --fsys-tarfile | tar`) into a cache folder, and the .deb is
deleted. Nothing is installed; a second run reuses the cache. Python needs Pillow:
Debian's python3-pil (installed with apt-get install -y when missing and root).

Then --count square crops (default 2000) are written, RANDOM position and scale, seeded, in a fixed
order: crop i takes photo floor(u * photos), side = short side x uniform(--min-scale, 1), position
uniform; resized to --size (Lanczos) and saved as OUT/images/000000.jpg ... (JPEG quality 95, or
--format png). OUT/README.md names every source (package, version, file, licence, author, SHA-256)
and OUT/manifest.json holds the same plus the parameters. A run whose OUT/manifest.json already
matches the parameters and sources does nothing (--force rebuilds). The folder is built beside
OUT and renamed into place, so a half-written fixture is never left under the final name.

Train on it with the images folder, e.g. (a 64 px fixture, the 64 px preset: the crop is the whole
image, no horizontal shift, since the crops are already random):
  streetgan-trainer train --data OUT/images --preset naive-64 --crop-factor 1 --max-shift 0 ...
The trainer's crop is --crop-factor x the model's size in source pixels (default 4), so a 64 px
fixture needs --crop-factor 1 for naive-64 and 2 for tiny-32 (the trainer then scales 64 -> 32).

Usage: make_photo_fixture.py [--out DIR] [--size 64|128] [--count 2000] [--seed 1]
                             [--min-scale 0.25] [--format jpg|png] [--cache DIR] [--force]
Prints one line at the end: the images folder and the image count.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

VERSION = 1  # of the crop procedure: part of the manifest, so a change rebuilds old fixtures

# Each: (package, path inside the package, licence, author / origin, what it shows).
SOURCES = [
    ("python3-sklearn", "usr/lib/python3/dist-packages/sklearn/datasets/images/china.jpg",
     "CC-BY-2.0", "danielbuechele (Flickr), scikit-learn sample image",
     "a pagoda on a wooded shore (Summer Palace, Beijing)"),
    ("python3-skimage", "usr/lib/python3/dist-packages/skimage/data/camera.png",
     "CC0-1.0", "Lav Varshney, scikit-image data", "a cameraman on a lawn, buildings behind (grey)"),
    ("python3-skimage", "usr/lib/python3/dist-packages/skimage/data/rocket.jpg",
     "public domain", "SpaceX, scikit-image data", "a launch pad at dusk"),
    ("python3-skimage", "usr/lib/python3/dist-packages/skimage/data/brick.png",
     "CC0-1.0", "CC0Textures (Bricks25), scikit-image data", "a brick wall (grey)"),
    ("mate-backgrounds", "usr/share/backgrounds/mate/nature/Storm.jpg",
     "GPL-2+", "Sergey Nazarov, 2008", "a road and guard rail under storm clouds"),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/Bridge_by_Sander_Klootwijk.jpg",
     "CC-BY-SA-4.0", "Sander Klootwijk, 2018", "bridge cables against the sky over a beach"),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/picosdeeuropa_by_Aitzol_Berasategi.jpg",
     "CC-BY-4.0", "Aitzol Berasategi, 2018", "a mountain path"),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/friends_by_Aitzol_Berasategi.jpg",
     "CC-BY-4.0", "Aitzol Berasategi, 2018", "dogs in the doorway of a timber house front"),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/sunset_by_Aitzol_Berasategi.jpg",
     "CC-BY-4.0", "Aitzol Berasategi, 2018", "sunset over a hillside"),
    ("lomiri-wallpapers-16.04", "usr/share/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg",
     "CC-BY-4.0", "Aitzol Berasategi, 2018", "hills, an autumn forest and a meadow"),
    ("plasma-workspace-wallpapers", "usr/share/wallpapers/Grey/contents/images/2560x1600.jpg",
     "LGPL-3 (metadata.json; Debian's copyright file: GPL-2+)", "Sigi Sagi, KDE wallpaper 'Grey'",
     "a curved building facade (black and white)"),
    ("plasma-workspace-wallpapers", "usr/share/wallpapers/EveningGlow/contents/images/2560x1600.jpg",
     "LGPL-3 (metadata.json; Debian's copyright file: GPL-2+)", "Ian Hex, KDE wallpaper 'EveningGlow'",
     "rowing boats on a lake shore at sunset"),
    ("plasma-workspace-wallpapers", "usr/share/wallpapers/Path/contents/images/2560x1600.jpg",
     "LGPL-3 (metadata.json; Debian's copyright file: GPL-2+)", "Risto Saukonpää, KDE wallpaper 'Path'",
     "a path through a forest"),
    ("plasma-workspace-wallpapers", "usr/share/wallpapers/BytheWater/contents/images/2560x1600.jpg",
     "LGPL-3 (metadata.json; Debian's copyright file: GPL-2+)", "Maciej Wiklo, KDE wallpaper 'BytheWater'",
     "a wooden pier on a lake"),
]
MAX_SOURCE_SIDE = 1024  # sources are scaled once so that their short side is at most this


def die(msg):
    sys.exit("make_photo_fixture.py: " + msg)


def ensure_python_deps():
    import importlib
    try:
        importlib.import_module("PIL.Image")
        return
    except ImportError:
        pass
    if os.geteuid() != 0:
        die("needs Pillow: apt-get install python3-pil (as root), then run "
            "this with /usr/bin/python3")
    subprocess.run(["apt-get", "install", "-y", "-q", "python3-pil"], check=True,
                   stdout=subprocess.DEVNULL)
    importlib.invalidate_caches()
    try:
        importlib.import_module("PIL.Image")
    except ImportError:
        die("python3-pil installed but not importable: run this with /usr/bin/python3")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_updated = False


def apt_download(package, into):
    """apt-get download PACKAGE into the folder; one apt-get update (as root) if it is unknown."""
    global _updated
    cmd = ["apt-get", "download", "-q", package]
    r = subprocess.run(cmd, cwd=into, capture_output=True, text=True)
    if r.returncode != 0 and not _updated and os.geteuid() == 0:
        subprocess.run(["apt-get", "update", "-q"], check=False, stdout=subprocess.DEVNULL)
        _updated = True
        r = subprocess.run(cmd, cwd=into, capture_output=True, text=True)
    debs = [f for f in os.listdir(into) if f.endswith(".deb")]
    if r.returncode != 0 or len(debs) != 1:
        die("apt-get download %s failed: %s" % (package, (r.stderr or r.stdout).strip()[-400:]))
    return os.path.join(into, debs[0])


def fetch_package(package, paths, cache):
    """The package's named files under cache/<package>/root/, its version; downloads at most once."""
    pdir = os.path.join(cache, package)
    done = os.path.join(pdir, "done.json")
    if os.path.exists(done):
        with open(done) as f:
            info = json.load(f)
        if set(paths) <= set(info["paths"]) and all(
                os.path.exists(os.path.join(pdir, "root", p)) for p in paths):
            return os.path.join(pdir, "root"), info["version"]
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        die("needs apt-get and dpkg-deb (a Debian machine) to fetch " + package)
    shutil.rmtree(pdir, ignore_errors=True)
    os.makedirs(pdir)
    tmp = tempfile.mkdtemp(dir=pdir)
    os.chmod(tmp, 0o777)  # apt's download sandbox user (_apt) writes here
    deb = apt_download(package, tmp)
    version = subprocess.run(["dpkg-deb", "-f", deb, "Version"], check=True, capture_output=True,
                             text=True).stdout.strip()
    copyright_file = "usr/share/doc/%s/copyright" % package
    members = ["./" + p for p in list(paths) + [copyright_file]]
    root = os.path.join(pdir, "root")
    os.makedirs(root)
    tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
    r = subprocess.run(["tar", "-x", "-C", root] + members, stdin=tar.stdout, capture_output=True,
                       text=True)
    tar.wait()
    if r.returncode != 0 or tar.returncode != 0:
        die("unpacking %s from %s failed: %s" % (" ".join(paths), os.path.basename(deb), r.stderr.strip()))
    shutil.rmtree(tmp)
    for p in paths:
        if not os.path.isfile(os.path.join(root, p)) or os.path.islink(os.path.join(root, p)):
            die("%s in %s %s is not a plain file (a link?): name the file itself in SOURCES" % (p, package, version))
    with open(done, "w") as f:
        json.dump({"package": package, "version": version, "paths": sorted(paths)}, f, indent=1)
    return root, version


def load_source(path):
    from PIL import Image
    im = Image.open(path)
    original = im.size
    if im.format == "JPEG":
        im.draft("RGB", (MAX_SOURCE_SIDE, MAX_SOURCE_SIDE))  # DCT-reduced decode of big photos
    im = im.convert("RGB")
    short = min(im.size)
    if short > MAX_SOURCE_SIDE:
        f = MAX_SOURCE_SIDE / short
        im = im.resize((max(1, round(im.size[0] * f)), max(1, round(im.size[1] * f))), Image.LANCZOS)
    return im, original


def readme_text(manifest):
    m = manifest
    lines = [
        "# Real-photo training fixture",
        "",
        "Made by `bench/make_photo_fixture.py` of StreetGAN Studio: %d square crops of %d x %d px in "
        "`images/`, random position and scale (side = short side x uniform(%.2f, 1)), seed %d, from "
        "the %d photographs below, which Debian packages ship. Every crop is a derivative (cropped, "
        "scaled, re-encoded as %s) of one of them and is under that photo's licence; the CC-BY and "
        "CC-BY-SA ones need this attribution kept with the images, and CC-BY-SA / GPL / LGPL ones "
        "pass their licence on. This folder is made locally and is not distributed with the project."
        % (m["count"], m["size"], m["size"], m["min_scale"], m["seed"], len(m["sources"]),
           m["format"].upper()),
        "",
        "| # | package (version) | file in the package | licence | author / origin | shows | size | crops |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, s in enumerate(m["sources"]):
        lines.append("| %d | %s (%s) | `/%s` | %s | %s | %s | %dx%d | %d |" % (
            i, s["package"], s["version"], s["path"], s["license"], s["author"], s["shows"],
            s["width"], s["height"], s["crops"]))
    lines += ["", "SHA-256 of each source file, in the order above:", ""]
    lines += ["- `%s`  %s" % (s["sha256"], os.path.basename(s["path"])) for s in m["sources"]]
    lines += ["", "Each package's own copyright file is in the cache the script used: `%s/<package>/root/usr/share/doc/<package>/copyright`."
              % m["cache"], ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    ap.add_argument("--out", help="fixture folder (default: ~/.cache/streetgan/photo-fixture-SIZE-COUNT-sSEED)")
    ap.add_argument("--size", type=int, default=64, help="crop side in pixels (64 or 128; default 64)")
    ap.add_argument("--count", type=int, default=2000, help="number of crops (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-scale", type=float, default=0.25,
                    help="smallest crop side as a fraction of the photo's short side (default 0.25)")
    ap.add_argument("--format", choices=["jpg", "png"], default="jpg")
    ap.add_argument("--cache", default=os.path.join(cache_home, "streetgan", "photo-sources"),
                    help="where the unpacked photos are kept (default ~/.cache/streetgan/photo-sources)")
    ap.add_argument("--force", action="store_true", help="rebuild even if OUT matches")
    a = ap.parse_args()
    if a.size < 8 or a.size > 1024:
        die("--size must be within 8..1024 (64 or 128 are the intended ones)")
    if a.count < 1:
        die("--count must be at least 1")
    if not 0 < a.min_scale <= 1:
        die("--min-scale must be in (0, 1]")
    out = os.path.abspath(a.out or os.path.join(cache_home, "streetgan",
                                                "photo-fixture-%d-%d-s%d" % (a.size, a.count, a.seed)))
    ensure_python_deps()
    from PIL import Image

    # Sources: fetch (once), hash, describe.
    by_package = {}
    for pkg, path, *_ in SOURCES:
        by_package.setdefault(pkg, []).append(path)
    roots = {pkg: fetch_package(pkg, paths, a.cache) for pkg, paths in by_package.items()}
    sources = []
    for pkg, path, lic, author, shows in SOURCES:
        root, version = roots[pkg]
        full = os.path.join(root, path)
        sources.append({"package": pkg, "version": version, "path": path, "license": lic,
                        "author": author, "shows": shows, "sha256": sha256(full), "file": full})
    manifest = {"generator": "bench/make_photo_fixture.py", "procedure_version": VERSION,
                "size": a.size, "count": a.count, "seed": a.seed, "min_scale": a.min_scale,
                "format": a.format, "cache": a.cache,
                "sources": [{k: v for k, v in s.items() if k != "file"} for s in sources]}
    images = os.path.join(out, "images")

    def key(m):
        return json.dumps({k: v for k, v in m.items() if k not in ("cache",)}, sort_keys=True,
                          default=str) if m else None

    mpath = os.path.join(out, "manifest.json")
    if not a.force and os.path.exists(mpath):
        with open(mpath) as f:
            old = json.load(f)
        # 'crops', 'width', 'height' are results, not parameters: compare without them
        strip = lambda m: {**m, "sources": [{k: v for k, v in s.items() if k not in ("crops", "width", "height")}
                                            for s in m.get("sources", [])]}
        have = [f for f in os.listdir(images) if f.endswith("." + a.format)] if os.path.isdir(images) else []
        if key(strip(old)) == key(strip(manifest)) and len(have) == a.count:
            print("photo fixture: %s (%d images, %dx%d %s, unchanged)" % (images, a.count, a.size, a.size, a.format))
            return

    # Crops, in a fixed order from one seeded generator (random.Random.random() is stable across
    # Python versions; only it is used).
    photos = []
    for s in sources:
        im, original = load_source(s["file"])
        s["width"], s["height"] = original
        s["crops"] = 0
        photos.append(im)
    rng = random.Random(a.seed)
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=os.path.basename(out) + ".tmp-", dir=parent)
    os.makedirs(os.path.join(work, "images"))
    for i in range(a.count):
        k = min(int(rng.random() * len(photos)), len(photos) - 1)
        im = photos[k]
        w, h = im.size
        short = min(w, h)
        side = short * (a.min_scale + (1 - a.min_scale) * rng.random())
        side = max(1, min(short, round(max(side, min(a.size, short)))))
        x = min(int(rng.random() * (w - side + 1)), w - side)
        y = min(int(rng.random() * (h - side + 1)), h - side)
        crop = im.crop((x, y, x + side, y + side)).resize((a.size, a.size), Image.LANCZOS)
        name = os.path.join(work, "images", "%06d.%s" % (i, a.format))
        if a.format == "jpg":
            crop.save(name, quality=95)
        else:
            crop.save(name)
        sources[k]["crops"] += 1
    manifest["sources"] = [{k: v for k, v in s.items() if k != "file"} for s in sources]
    with open(os.path.join(work, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(work, "README.md"), "w") as f:
        f.write(readme_text(manifest))
    if os.path.exists(out):
        shutil.rmtree(out)
    os.rename(work, out)
    print("photo fixture: %s (%d images, %dx%d %s)" % (images, a.count, a.size, a.size, a.format))


if __name__ == "__main__":
    main()
