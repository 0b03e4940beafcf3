"""Writes a TensorBoard run as the reference project's Python trainer logs one (PyTorch's own
SummaryWriter into ROOT/NAME/events: G_loss, D_loss, D_X, D_G_z1, D_G_z2 against images processed,
the fixed-noise grid every 50 iterations), with loss curves shaped like a DCGAN's, plus two tags of
other kinds (lr/G, timing/data) and a restart into a second event file, and its checkpoints beside
events/ (NAME/checkpoints/checkpoint_<epoch>.pt, the reference's dict, img_list growing by one grid
a saved epoch), for the screenshots of a run of another trainer (tools/screenshots.sh). Needs
tests/python/tb-env.sh's Python.
Usage: reference_style_run.py RUN_FOLDER"""
import math
import os
import sys

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter

folder = sys.argv[1]
rng = np.random.default_rng(11)
batch, iterations, restart = 128, 1200, 800


def grid(it):
    # A 4x4 grid of 16x16 "street" tiles that sharpen as training goes on.
    sharp = min(1.0, it / iterations + 0.2)
    tiles = []
    for k in range(16):
        sky = np.linspace(0.9, 0.5, 16)[:, None] * np.ones((16, 16))
        road = (np.arange(16)[:, None] > 9 + (k % 3)) * 0.35
        img = np.stack([sky * 0.6 + road, sky * 0.7 + road, sky + road * 0.8])
        img = sharp * img + (1 - sharp) * rng.uniform(0, 1, size=img.shape)
        tiles.append(img)
    rows = [np.concatenate(tiles[r * 4:(r + 1) * 4], axis=2) for r in range(4)]
    return torch.from_numpy(np.clip(np.concatenate(rows, axis=1), 0, 1).astype(np.float32))


def log(writer, it):
    step = it * batch
    x = it / iterations
    d_loss = 1.35 * math.exp(-2.5 * x) + 0.45 + 0.12 * rng.normal()
    g_loss = 0.9 + 2.2 * (1 - math.exp(-3 * x)) + 0.35 * rng.normal()
    d_x = min(0.99, 0.55 + 0.3 * x + 0.05 * rng.normal())
    d_g1 = max(0.01, 0.45 - 0.25 * x + 0.05 * rng.normal())
    writer.add_scalar("G_loss", g_loss, step)
    writer.add_scalar("D_loss", d_loss, step)
    writer.add_scalar("D_X", d_x, step)
    writer.add_scalar("D_G_z1", d_g1, step)
    writer.add_scalar("D_G_z2", max(0.01, d_g1 - 0.08), step)
    writer.add_scalar("lr/G", 2e-4 * 0.5 ** (it // 400), step)
    writer.add_scalar("timing/data", abs(0.02 + 0.01 * rng.normal()), step)
    if it % 50 == 0:
        writer.add_image("fixed_noise", grid(it), step)


w = SummaryWriter(log_dir=folder)
for it in range(restart):
    log(w, it)
w.close()
w = SummaryWriter(log_dir=folder)  # the restart: a second event file goes on
for it in range(restart, iterations):
    log(w, it)
w.close()


# The reference's checkpoints: its dict (tiny-32 weights of reference_dcgan.py: the screenshots show
# the grids, not the model), one saved epoch every 300 iterations, img_list gaining that epoch's grid.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python"))
from reference_dcgan import ReferenceStep, build  # noqa: E402

g, d, p = build("tiny-32")
opt = ReferenceStep(g, d, p["nz"])
checkpoints = os.path.join(os.path.dirname(os.path.abspath(folder)), "checkpoints")
os.makedirs(checkpoints, exist_ok=True)
img_list = []
for epoch in range(iterations // 300):
    img_list.append(grid((epoch + 1) * 300))
    torch.save({"epoch": epoch, "D_state_dict": d.state_dict(), "G_state_dict": g.state_dict(), "D_optim": opt.opt_d.state_dict(),
                "G_optim": opt.opt_g.state_dict(), "losses": {"_G": [], "_D": []}, "img_list": img_list,
                "noise": torch.randn(16, p["nz"], 1, 1)}, os.path.join(checkpoints, "checkpoint_%d.pt" % epoch))
