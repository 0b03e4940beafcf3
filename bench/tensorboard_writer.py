"""Helper of bench_remote.sh: a run of another trainer, written live with PyTorch's SummaryWriter
(tests/python/tb-env.sh's Python): the reference project's five tags at each step, a step every
EVERY_MS. Writes the first step, prints "ready" (the follower may start: the folder holds an
event file), waits WAIT seconds, then writes STEPS more. Usage:
tensorboard_writer.py FOLDER --steps N --every-ms MS --wait S"""
import argparse
import math
import sys
import time

from torch.utils.tensorboard import SummaryWriter

p = argparse.ArgumentParser()
p.add_argument("folder")
p.add_argument("--steps", type=int, default=100)
p.add_argument("--every-ms", type=float, default=50)
p.add_argument("--wait", type=float, default=3)
a = p.parse_args()
w = SummaryWriter(log_dir=a.folder, flush_secs=1)


def log(it):
    for tag in ("G_loss", "D_loss", "D_X", "D_G_z1", "D_G_z2"):
        w.add_scalar(tag, 1.0 + math.sin(it / 10.0), it * 128)
    w.flush()  # what a trainer's writer does within flush_secs; here at once, so the latency is ours


log(0)
print("ready", flush=True)
time.sleep(a.wait)
for it in range(1, a.steps + 1):
    log(it)
    time.sleep(a.every_ms / 1000.0)
w.close()
