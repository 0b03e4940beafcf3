#!/usr/bin/env python3
"""Reference for the SWD tests: the multi-scale sliced Wasserstein distance of Karras et al.,
"Progressive Growing of GANs" (ICLR 2018, appendix D), written from the paper and
progressive_growing_of_gans/metrics/sliced_wasserstein.py in NumPy alone, independently of the
C++ code (eval/LaplacianPyramid, eval/SlicedWasserstein): a 2-D 5x5 binomial kernel (not two 1-D
passes) applied by shifted sums with NumPy's 'reflect' padding (scipy.ndimage's 'mirror'),
Laplacian levels, 7x7x3 neighbourhoods cut by slicing, per-set per-channel normalisation with
np.std, and the sliced distance by np.sort. Float64 throughout.

Only the random parts come from the C++ side, so that both draw the same: the neighbourhood
centres and the directions.

Usage: swd_ref.py A B N S LEVELS K DIR OUT
  A, B       float32 (N, 3, S, S) images in [0, 255] (raw, C order)
  K          directions per repeat
  DIR        holds pos_<l>.bin (int64 (N * 128, 2): y, x) and dirs_<l>.bin (float32 (R, 147, K))
             for each level l
  OUT        float64 [distance of level 0, ..., of level LEVELS-1] (not scaled)
"""
import sys

import numpy as np

KERNEL = np.outer([1, 4, 6, 4, 1], [1, 4, 6, 4, 1]).astype(np.float64) / 256.0


def convolve(x, kernel):
    # Mirror boundary: d c b | a b c d | c b a (the edge pixel is not repeated).
    p = np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), mode="reflect")
    h, w = x.shape[2], x.shape[3]
    out = np.zeros_like(x)
    for dy in range(5):
        for dx in range(5):
            out += kernel[dy, dx] * p[:, :, dy:dy + h, dx:dx + w]
    return out


def pyr_down(x):
    return convolve(x, KERNEL)[:, :, ::2, ::2]


def pyr_up(x):
    n, c, h, w = x.shape
    up = np.zeros((n, c, 2 * h, 2 * w), x.dtype)
    up[:, :, ::2, ::2] = x
    return convolve(up, KERNEL * 4.0)


def laplacian_pyramid(images, levels):
    pyramid = [images.astype(np.float64)]
    for _ in range(1, levels):
        pyramid.append(pyr_down(pyramid[-1]))
        pyramid[-2] = pyramid[-2] - pyr_up(pyramid[-1])
    return pyramid


def descriptors(level, pos, nhoods_per_image, size=7):
    h = size // 2
    out = np.empty((pos.shape[0], 3, size, size))
    for m, (y, x) in enumerate(pos):
        out[m] = level[m // nhoods_per_image, :, y - h:y + h + 1, x - h:x + h + 1]
    return out


def finalize(desc):
    desc = desc - np.mean(desc, axis=(0, 2, 3), keepdims=True)
    std = np.std(desc, axis=(0, 2, 3), keepdims=True)
    desc = desc / np.where(std > 0, std, 1.0)
    return desc.reshape(desc.shape[0], -1)


def sliced_wasserstein(a, b, dirs):
    results = []
    for d in dirs:  # one repeat: (components, directions)
        pa = np.sort(a @ d, axis=0)
        pb = np.sort(b @ d, axis=0)
        results.append(np.mean(np.abs(pa - pb)))
    return np.mean(results)


def main():
    a_path, b_path, n, s, levels, per_level_dirs, folder, out = sys.argv[1:9]
    n, s, levels, per_level_dirs = int(n), int(s), int(levels), int(per_level_dirs)
    a = np.fromfile(a_path, dtype=np.float32).reshape(n, 3, s, s)
    b = np.fromfile(b_path, dtype=np.float32).reshape(n, 3, s, s)
    pa, pb = laplacian_pyramid(a, levels), laplacian_pyramid(b, levels)
    dists = []
    for lvl in range(levels):
        pos = np.fromfile(f"{folder}/pos_{lvl}.bin", dtype=np.int64).reshape(-1, 2)
        dirs = np.fromfile(f"{folder}/dirs_{lvl}.bin", dtype=np.float32).astype(np.float64)
        dirs = dirs.reshape(-1, 147, per_level_dirs)
        per_image = pos.shape[0] // n
        da = finalize(descriptors(pa[lvl], pos, per_image))
        db = finalize(descriptors(pb[lvl], pos, per_image))
        dists.append(sliced_wasserstein(da, db, dirs))
    np.array(dists, dtype=np.float64).tofile(out)


if __name__ == "__main__":
    main()
