#!/usr/bin/python3
"""Reference values for tests/ml/latent/SlerpTest.cpp.

  slerp_ref.py slerp DIR   reads DIR/z0.f32, DIR/z1.f32 (raw float32) and DIR/ts.txt (one t per
                           line); writes DIR/out.f64 (raw float64, T x numel): the reference
                           project's SLERP (shared/DESIGN.md) in NumPy, float64:
                           z0n = z0/|z0|, z1n = z1/|z1|, omega = arccos(clip(<z0n, z1n>, -1, 1)),
                           z(t) = sin((1-t) omega)/sin(omega) z0 + sin(t omega)/sin(omega) z1
  slerp_ref.py seed DIR SEED NZ COUNT   writes DIR/seed.f32: torch.manual_seed(SEED);
                           torch.randn(COUNT, NZ, 1, 1) (COUNT 0: torch.randn(NZ)), raw float32
  slerp_ref.py walk DIR N  the reference project's latent walk (gen_img_sequence_array in
                           model/msls/dcgan_utils.py): for ratio in torch.linspace(0.0, 8.0, N), the
                           latent slerp_noise_vect(ratio, Z_l, Z_h), in torch float32 on rows
                           (1, nz) as it computes it; Z_l = DIR/z0.f32, Z_h = DIR/z1.f32. Writes
                           DIR/ratios.f64 (N float64: the float32 ratios) and DIR/walk.f32 (N x nz)
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


def reference_walk(z_l, z_h, n):
    """The reference walk's ratios and latents: (N,) float32 and (N, nz) float32 tensors.

    Follows the reference's slerp_noise_vect: per-row norms (dim 1), omega from the normalised
    rows, weights sin((1 - ratio) omega) / sin(omega) and sin(ratio omega) / sin(omega), all in
    float32 with the ratio a 0-d float32 tensor taken from torch.linspace(0.0, 8.0, n).
    """
    import torch
    ratios = torch.linspace(0.0, 8.0, n)
    a = z_l / torch.norm(z_l, dim=1, keepdim=True)
    b = z_h / torch.norm(z_h, dim=1, keepdim=True)
    omega = torch.acos((a * b).sum(1))
    so = torch.sin(omega)
    rows = []
    for ratio in ratios:
        w_l = (torch.sin((1.0 - ratio) * omega) / so).unsqueeze(1)
        w_h = (torch.sin(ratio * omega) / so).unsqueeze(1)
        rows.append((w_l * z_l + w_h * z_h)[0])
    return ratios, torch.stack(rows)


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
    elif mode == "walk":
        import torch
        n = int(sys.argv[3])
        z_l = torch.from_numpy(np.fromfile(os.path.join(d, "z0.f32"), dtype=np.float32)).view(1, -1)
        z_h = torch.from_numpy(np.fromfile(os.path.join(d, "z1.f32"), dtype=np.float32)).view(1, -1)
        ratios, walk = reference_walk(z_l, z_h, n)
        ratios.numpy().astype(np.float64).tofile(os.path.join(d, "ratios.f64"))
        walk.numpy().astype(np.float32).tofile(os.path.join(d, "walk.f32"))
    else:
        sys.exit("slerp_ref.py: unknown mode " + mode)


if __name__ == "__main__":
    main()
