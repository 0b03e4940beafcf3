#!/usr/bin/python3
"""Reference values for tests/ml/latent/SlerpTest.cpp.

  slerp_ref.py slerp DIR   reads DIR/z0.f32, DIR/z1.f32 (raw float32) and DIR/ts.txt (one t per
                           line); writes DIR/out.f64 (raw float64, T x numel): the reference
                           project's SLERP (shared/DESIGN.md) in NumPy, float64:
                           z0n = z0/|z0|, z1n = z1/|z1|, omega = arccos(clip(<z0n, z1n>, -1, 1)),
                           z(t) = sin((1-t) omega)/sin(omega) z0 + sin(t omega)/sin(omega) z1
  slerp_ref.py seed DIR SEED NZ COUNT   writes DIR/seed.f32: torch.manual_seed(SEED);
                           torch.randn(COUNT, NZ, 1, 1) (COUNT 0: torch.randn(NZ)), raw float32
Run with Debian's /usr/bin/python3 (python3-numpy, python3-torch for `seed`).
"""
import os
import sys

import numpy as np


def slerp(z0, z1, t):
    z0n = z0 / np.linalg.norm(z0)
    z1n = z1 / np.linalg.norm(z1)
    omega = np.arccos(np.clip(np.dot(z0n, z1n), -1.0, 1.0))
    so = np.sin(omega)
    return np.sin((1.0 - t) * omega) / so * z0 + np.sin(t * omega) / so * z1


def main():
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "slerp":
        z0 = np.fromfile(os.path.join(d, "z0.f32"), dtype=np.float32).astype(np.float64)
        z1 = np.fromfile(os.path.join(d, "z1.f32"), dtype=np.float32).astype(np.float64)
        ts = [float(x) for x in open(os.path.join(d, "ts.txt")).read().split()]
        out = np.stack([slerp(z0, z1, t) for t in ts]).astype(np.float64)
        out.tofile(os.path.join(d, "out.f64"))
    elif mode == "seed":
        import torch
        seed, nz, count = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        torch.manual_seed(seed)
        z = torch.randn(nz) if count == 0 else torch.randn(count, nz, 1, 1)
        z.numpy().astype(np.float32).tofile(os.path.join(d, "seed.f32"))
    else:
        sys.exit("slerp_ref.py: unknown mode " + mode)


if __name__ == "__main__":
    main()
