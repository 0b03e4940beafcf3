#!/usr/bin/env python3
"""Reference for the metrics tests: FID as clean-fid / pytorch-fid compute it (NumPy statistics,
scipy.linalg.sqrtm of the covariance product), KID's unbiased MMD^2 with the cubic kernel as
torch-fidelity's mmd2, and precision/recall by brute force after StyleGAN2-ADA's
precision_recall.py. Also recomputes features of raw images with a TorchScript model.

Usage: fid_ref.py MANIFEST
MANIFEST lines (raw .bin files: C order; features float32 (N, D); images float32 (N, 3, H, W)):
  fid A NA B NB D OUT            OUT: float64 [fid, trace of sqrtm(S1 S2), ||mu1 - mu2||^2]
  kid A NA B NB D OUT            OUT: float64 [MMD^2_u of the whole sets] (NA == NB)
  pr A NA B NB D K OUT           OUT: float64 [precision, recall] of B (generated) vs A (real)
  features MODEL IMAGES N H W KW OUT   OUT: float32 (N, D) features; KW 1: return_features=True
"""
import sys

import numpy as np
from scipy import linalg


def load(path, rows, d):
    return np.fromfile(path, dtype=np.float32).reshape(int(rows), int(d)).astype(np.float64)


def frechet_distance(mu1, sigma1, mu2, sigma2, eps=1e-6):
    # clean-fid's fid_from_feats / pytorch-fid's calculate_frechet_distance.
    diff = mu1 - mu2
    covmean, _ = linalg.sqrtm(sigma1.dot(sigma2), disp=False)
    if not np.isfinite(covmean).all():
        offset = np.eye(sigma1.shape[0]) * eps
        covmean = linalg.sqrtm((sigma1 + offset).dot(sigma2 + offset))
    if np.iscomplexobj(covmean):
        covmean = covmean.real
    tr_covmean = np.trace(covmean)
    return diff.dot(diff) + np.trace(sigma1) + np.trace(sigma2) - 2 * tr_covmean, tr_covmean, diff.dot(diff)


def polynomial_kernel(x, y):
    return (x @ y.T / x.shape[1] + 1.0) ** 3


def mmd2(f1, f2):
    # torch-fidelity's mmd2 (unbiased).
    k_11, k_22, k_12 = polynomial_kernel(f1, f1), polynomial_kernel(f2, f2), polynomial_kernel(f1, f2)
    m = f1.shape[0]
    kt_xx_sum = (k_11.sum(axis=-1) - np.diagonal(k_11)).sum()
    kt_yy_sum = (k_22.sum(axis=-1) - np.diagonal(k_22)).sum()
    k_xy_sum = k_12.sum()
    return (kt_xx_sum + kt_yy_sum) / (m * (m - 1)) - 2 * k_xy_sum / (m ** 2)


def coverage(manifold, probes, k):
    d_mm = np.sqrt(((manifold[:, None, :] - manifold[None, :, :]) ** 2).sum(-1))
    radii = np.sort(d_mm, axis=1)[:, k]  # index 0 is the point itself
    d_pm = np.sqrt(((probes[:, None, :] - manifold[None, :, :]) ** 2).sum(-1))
    return float((d_pm <= radii[None, :]).any(axis=1).mean())


def main():
    with open(sys.argv[1]) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "fid":
                _, a, na, b, nb, d, out = p
                x, y = load(a, na, d), load(b, nb, d)
                r = frechet_distance(x.mean(0), np.cov(x, rowvar=False), y.mean(0), np.cov(y, rowvar=False))
                np.array(r, dtype=np.float64).tofile(out)
            elif p[0] == "kid":
                _, a, na, b, nb, d, out = p
                np.array([mmd2(load(a, na, d), load(b, nb, d))], dtype=np.float64).tofile(out)
            elif p[0] == "pr":
                _, a, na, b, nb, d, k, out = p
                real, fake, k = load(a, na, d), load(b, nb, d), int(k)
                np.array([coverage(real, fake, k), coverage(fake, real, k)], dtype=np.float64).tofile(out)
            elif p[0] == "features":
                import torch
                _, model, images, n, h, w, kw, out = p
                x = torch.from_numpy(np.fromfile(images, dtype=np.float32).reshape(int(n), 3, int(h), int(w)))
                net = torch.jit.load(model).eval()
                with torch.no_grad():
                    feats = net(x, return_features=True) if kw == "1" else net(x)
                feats.reshape(int(n), -1).numpy().astype(np.float32).tofile(out)
            else:
                raise SystemExit("unknown manifest line: " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
