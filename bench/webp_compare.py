"""GIF against animated WebP of the same frames (bench/bench_webp.sh): bytes, mean PSNR against the
true frames (a folder of PNGs) and playing time. Each animation is decoded with Pillow and expanded
by its frames' durations to one image per true frame, so frames an encoder merged count as often as
they are shown.

Usage: webp_compare.py FRAMES_DIR WALK.gif WALK.webp OUT.json SESSION
"""
import json
import math
import os
import sys

import numpy as np
from PIL import Image, ImageSequence


def true_frames(folder):
    names = sorted(n for n in os.listdir(folder) if n.endswith(".png"))
    return [np.asarray(Image.open(os.path.join(folder, n)).convert("RGB"), dtype=np.float64) for n in names]


def shown_frames(path, count):
    """The animation's frames and total time; frames repeated by duration to `count` images."""
    im = Image.open(path)
    frames, durations = [], []
    for f in ImageSequence.Iterator(im):
        frames.append(np.asarray(f.convert("RGB"), dtype=np.float64))
        durations.append(f.info.get("duration", 0))
    total = sum(durations)
    if len(frames) == 1 or total == 0:
        return [frames[0]] * count, total
    step = total / count  # every true frame shows this long
    out, t, k, end = [], 0.0, 0, durations[0]
    for i in range(count):
        t = (i + 0.5) * step
        while t >= end and k + 1 < len(frames):
            k += 1
            end += durations[k]
        out.append(frames[k])
    return out, total


def psnr(a, b):
    mse = float(np.mean((a - b) ** 2))
    return 99.0 if mse == 0 else 10 * math.log10(255.0 * 255.0 / mse)


def main():
    folder, gif, webp, out_json, session = sys.argv[1:6]
    truth = true_frames(folder)
    doc = {"session": session, "frames": len(truth), "size": truth[0].shape[0]}
    for name, path in (("gif", gif), ("webp", webp)):
        shown, total = shown_frames(path, len(truth))
        doc[name] = {"bytes": os.path.getsize(path), "psnr_db": sum(psnr(a, b) for a, b in zip(shown, truth)) / len(truth), "playing_ms": total}
    doc["webp_bytes_over_gif"] = doc["webp"]["bytes"] / doc["gif"]["bytes"]
    doc["webp_psnr_minus_gif_db"] = doc["webp"]["psnr_db"] - doc["gif"]["psnr_db"]
    doc["host"] = {"cpus": os.cpu_count()}
    with open(out_json, "w") as f:
        f.write(json.dumps(doc, indent=2) + "\n")
    print("%s: %d frames of %d px" % (os.path.basename(session), doc["frames"], doc["size"]))
    print("    %-5s %10s %9s %11s" % ("", "bytes", "PSNR dB", "playing ms"))
    for name in ("gif", "webp"):
        d = doc[name]
        print("    %-5s %10d %9.2f %11d" % (name, d["bytes"], d["psnr_db"], d["playing_ms"]))
    print("WebP / GIF bytes: %.3f at %+.2f dB" % (doc["webp_bytes_over_gif"], doc["webp_psnr_minus_gif_db"]))
    print("JSON: " + out_json)


if __name__ == "__main__":
    main()
