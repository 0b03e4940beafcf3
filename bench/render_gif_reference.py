#!/usr/bin/env python3
"""Pillow's GIF writer on the same frames as ours (bench_render.sh, part b).

usage: render_gif_reference.py FRAMES_DIR OURS_GIF OUT_GIF REPEATS
Loads the true frames (PNG sequence), saves them with the reference project's call
(frames[0].save(path, save_all=True, append_images=frames[1:], duration=80, loop=0, optimize=True),
Pillow's default quantisation) REPEATS times (median time), then decodes both GIFs with Pillow and
reports the mean PSNR of each against the true frames, and both file sizes, as one JSON line.
"""
import glob
import io
import json
import math
import os
import statistics
import sys
import time

import numpy as np
import PIL
from PIL import Image, ImageSequence


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def decode(path):
    with Image.open(path) as im:
        return [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(im)]


def main():
    frames_dir, ours, out, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    truth = [np.asarray(Image.open(p).convert("RGB")) for p in sorted(glob.glob(os.path.join(frames_dir, "frame_*.png")))]
    frames = [Image.fromarray(t) for t in truth]
    times = []
    for _ in range(repeats):
        buf = io.BytesIO()
        t0 = time.perf_counter()
        frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=80, loop=0, optimize=True)
        times.append(time.perf_counter() - t0)
    with open(out, "wb") as f:
        f.write(buf.getvalue())
    result = {"pillow_version": PIL.__version__, "frames": len(truth)}
    for name, path, secs in (("pillow", out, statistics.median(times)), ("ours", ours, None)):
        dec = decode(path)
        assert len(dec) == len(truth), (name, len(dec), len(truth))
        result[name + "_psnr_db"] = round(sum(psnr(d, t) for d, t in zip(dec, truth)) / len(truth), 3)
        result[name + "_bytes"] = os.path.getsize(path)
        if secs is not None:
            result[name + "_encode_s_median"] = round(secs, 4)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
