#!/usr/bin/env python3
"""Reference for ParzenWindowTest: the Parzen-window log-likelihood of Goodfellow et al.'s
parzen_ll.py, written the plain way in NumPy (no SciPy, no batching, no matrix tricks): for each x,
the differences to every sample, a stable log-mean-exp, minus d * log(sigma * sqrt(2 pi)).

Usage: parzen_ref.py MANIFEST
MANIFEST lines (raw .bin files are float32, C order, N rows of D values):
  eval SAMPLES N VAL NV TEST NT D OUT   cross-validate sigma over numpy.logspace(-1, 0, 10) on VAL,
                                        score TEST: writes OUT.sigmas, OUT.scores (float64, 10 each),
                                        OUT.result (float64: sigma, mean, se), OUT.test (float64, NT)
  ll MU N X M D SIGMA OUT               per-x log-likelihoods (float64, M) under SIGMA
"""
import sys

import numpy as np


def log_mean_exp(a):
    m = a.max()
    return m + np.log(np.exp(a - m).mean())


def parzen_ll(mu, x, sigma):
    d = mu.shape[1]
    z = d * np.log(sigma * np.sqrt(np.pi * 2))
    out = np.empty(x.shape[0], dtype=np.float64)
    for j in range(x.shape[0]):
        a = (x[j][None, :] - mu) / sigma
        out[j] = log_mean_exp(-0.5 * (a ** 2).sum(1)) - z
    return out


def load(path, rows, d):
    return np.fromfile(path, dtype=np.float32).reshape(int(rows), int(d)).astype(np.float64)


def main():
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "eval":
                _, s, n, v, nv, t, nt, d, out = parts
                samples, valid, test = load(s, n, d), load(v, nv, d), load(t, nt, d)
                sigmas = np.logspace(-1, 0, 10)
                scores = np.array([parzen_ll(samples, valid, sg).mean() for sg in sigmas])
                sigma = sigmas[np.argmax(scores)]
                ll = parzen_ll(samples, test, sigma)
                se = ll.std() / np.sqrt(test.shape[0])
                sigmas.astype(np.float64).tofile(out + ".sigmas")
                scores.astype(np.float64).tofile(out + ".scores")
                np.array([sigma, ll.mean(), se], dtype=np.float64).tofile(out + ".result")
                ll.astype(np.float64).tofile(out + ".test")
            elif parts[0] == "ll":
                _, m, n, x, nx, d, sigma, out = parts
                parzen_ll(load(m, n, d), load(x, nx, d), float(sigma)).astype(np.float64).tofile(out)
            else:
                raise SystemExit("unknown manifest line: " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
