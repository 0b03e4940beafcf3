#!/usr/bin/env python3
"""The PyTorch side of bench_fid.sh: the same FID computation as `streetgan-trainer eval --metric
fid`, written the way clean-fid does it, on the same TorchScript feature model.

- generated: the reference naive-64 generator (tests/python/reference_dcgan.py, eval mode, seeded
  random weights: the cost does not depend on the weights), z ~ N(0, 1) per batch, Tanh output
  mapped to round((x + 1) * 127.5) in [0, 255], through model(x, return_features=True);
- real: N random 8-bit 64x64 RGB images (a dense CNN costs the same whatever the pixels; the C++
  side decodes synthetic scenes, which this side cannot render), through the same model;
- statistics: numpy mean and np.cov(rowvar=False) in float64 and clean-fid's frechet_distance
  (scipy.linalg.sqrtm of sigma1 @ sigma2).
Prints one JSON document with the seconds of each phase.

Usage: fid_reference.py --features MODEL.pt --samples N [--real-samples N] [--batch 50]
                        [--threads T] [--json]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
import reference_dcgan  # noqa: E402
import fid_ref  # noqa: E402  (the same clean-fid formula the tests check against)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", required=True)
    ap.add_argument("--samples", type=int, required=True)
    ap.add_argument("--real-samples", type=int, default=0)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    real_n = a.real_samples or a.samples
    torch.manual_seed(0)
    p = reference_dcgan.PRESETS["naive-64"]
    g = reference_dcgan.Generator(p["nz"], p["ngf"], p["img_size"]).eval()
    model = torch.jit.load(a.features).eval()

    t0 = time.perf_counter()
    gen = []
    with torch.no_grad():
        for s in range(0, a.samples, a.batch):
            b = min(a.batch, a.samples - s)
            x = g(torch.randn(b, p["nz"], 1, 1))
            x = ((x + 1) * 127.5).round().clamp(0, 255)
            gen.append(model(x, return_features=True).reshape(b, -1).numpy())
    t1 = time.perf_counter()
    rng = np.random.default_rng(0)
    real = []
    with torch.no_grad():
        for s in range(0, real_n, a.batch):
            b = min(a.batch, real_n - s)
            x = torch.from_numpy(rng.integers(0, 256, size=(b, 3, p["img_size"], p["img_size"]), dtype=np.uint8)).float()
            real.append(model(x, return_features=True).reshape(b, -1).numpy())
    t2 = time.perf_counter()
    f1, f2 = np.concatenate(real).astype(np.float64), np.concatenate(gen).astype(np.float64)
    fid = float(fid_ref.frechet_distance(f1.mean(0), np.cov(f1, rowvar=False), f2.mean(0), np.cov(f2, rowvar=False))[0])
    t3 = time.perf_counter()
    doc = {"side": "python", "samples": a.samples, "real_samples": real_n, "batch": a.batch, "threads": torch.get_num_threads(),
           "fid": fid, "feature_dim": int(f2.shape[1]),
           "timing": {"generated_features": t1 - t0, "real_features": t2 - t1, "metrics": t3 - t2},
           "seconds": t3 - t0, "torch": torch.__version__}
    print(json.dumps(doc) if a.json else doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
