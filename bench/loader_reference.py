"""The reference data pipeline, timed: torchvision ImageFolder with the reference transforms and a
DataLoader with the same number of workers as the C++ loader's threads (Debian's /usr/bin/python3
with python3-torch, python3-torchvision, python3-pil). Prints one JSON document like
`streetgan-trainer bench loader --json`.

Reference transforms (the Python project's): RandomAffine(0, translate=(0.2, 0)), CenterCrop(4*size),
Resize(size), ToTensor, + Gaussian noise std 0.05, Normalize((0.5,)*3, (0.5,)*3).
"""
import argparse
import json
import time

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class AddGaussianNoise:
    def __init__(self, mean=0.0, std=0.05):
        self.mean, self.std = mean, std

    def __call__(self, t):
        return t + torch.randn(t.size()) * self.std + self.mean


def reference_transform(size):
    """The reference transforms for `size` px outputs (also bench/s3_reference.py's)."""
    return transforms.Compose([
        transforms.RandomAffine(degrees=0, translate=(0.2, 0)),
        transforms.CenterCrop(4 * size),
        transforms.Resize(size),
        transforms.ToTensor(),
        AddGaussianNoise(0.0, 0.05),
        transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    ])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="ImageFolder root (one sub-folder per class/city)")
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1, help="DataLoader workers")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    tf = reference_transform(a.size)
    ds = datasets.ImageFolder(a.data, transform=tf)
    dl = DataLoader(ds, batch_size=a.batch, shuffle=True, num_workers=a.threads, drop_last=True, persistent_workers=True)
    images, it = 0, iter(dl)
    for _ in range(a.threads):  # warm-up: workers started, first batches made
        next(it)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < a.seconds:
        try:
            x, _ = next(it)
        except StopIteration:
            it = iter(dl)
            continue
        images += x.size(0)
    s = time.perf_counter() - t0
    out = {"images_per_s": images / s, "threads": a.threads, "size": a.size, "source": "torchvision ImageFolder " + a.data,
           "batch": a.batch, "seconds": s}
    print(json.dumps(out) if a.json else "%.1f images/s (%d workers)" % (out["images_per_s"], a.threads))


if __name__ == "__main__":
    main()
