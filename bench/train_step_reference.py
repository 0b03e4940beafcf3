#!/usr/bin/python3
"""Time N reference DCGAN training steps in PyTorch, the Python twin of

    streetgan-trainer bench train --preset P --batch B --threads T --steps N [--warmup W]
                                  [--device D --amp A --channels-last] --json

Run with Debian's /usr/bin/python3 (python3-torch 1.13), or with a PyTorch 2.x (bench/bench_torch2.sh
makes a venv with pip's torch 2.11) for --device cuda, --amp and --compile (torch.compile of G and
D, the default mode). On CUDA the step is what a PyTorch user writes for speed and what our trainer
does: AdamW with fused=True, autocast with a GradScaler for fp16, channels-last when asked.

Measured exactly like the C++ side: a fixed real batch made once outside the timer and fresh
N(0, 1) noise inside every timed step; on a GPU both as our trainer feeds it (--host-batch, the
default there): the batch as pinned uint8 pixels on the host, copied to the device and normalised
there in every step (plus --aug-noise's Gaussian noise, drawn on the device), z drawn on the host
into pinned memory and copied; cuDNN's benchmark on (as our trainer and bench). Models in train
mode, W untimed warm-up steps, then --repeat runs of N timed steps (the median and the spread). The metric tensors stay on
the device during the loop (no .item() per step) and are read once at the end, inside the timed
interval, which is the single host sync. Prints one JSON document with --json:
{"preset","batch","threads","steps","warmup","device","seconds","images_per_s"} plus
"last" (the last step's losses and D outputs, a sanity check that the step did real work),
"torch" (version) and "blas" (the BLAS library mapped into the process: on CPU it decides
most of the speed, see bench/README.md).

This is a benchmark, not a test: it asserts nothing about time.
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))

try:
    import torch
except ImportError:
    sys.exit("train_step_reference.py: no torch in %s; run it with /usr/bin/python3 (Debian python3-torch)"
             % sys.executable)

import reference_dcgan  # noqa: E402  (needs the sys.path entry above)

METRIC_NAMES = ("loss_d", "loss_g", "d_x", "d_g_z1", "d_g_z2")


def loaded_blas():
    """Path of the BLAS library this process has mapped (Linux), or None. LibTorch's speed on
    CPU depends on it: Debian's libtorch uses whatever libblas.so.3 the alternatives pick."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "/" in line}
    except OSError:
        return None
    hits = sorted(os.path.realpath(x) for x in paths
                  if any(k in os.path.basename(x) for k in ("blas", "blis", "mkl_core", "mkl_rt"))
                  and not os.path.basename(x).startswith(("libcublas", "libnvblas")))  # CUDA's, not the CPU's
    return hits[0] if hits else None


def default_threads():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be >= 1, got %s" % text)
    return value


def non_negative(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0, got %s" % text)
    return value


class DeviceStep:
    """The reference step (reference_dcgan.ReferenceStep: same losses, labels and order) on any
    device, with autocast, channels-last, torch.compile and, on CUDA, fused AdamW."""

    def __init__(self, g, d, device, amp, channels_last, compile_models, compile_mode="default"):
        fmt = torch.channels_last if channels_last else torch.contiguous_format
        self.g = g.to(device, memory_format=fmt)
        self.d = d.to(device, memory_format=fmt)
        fused = {"fused": True} if device.type == "cuda" else {}
        self.opt_g = torch.optim.AdamW(self.g.parameters(), lr=2e-4, betas=(0.5, 0.999), weight_decay=0.05, **fused)
        self.opt_d = torch.optim.AdamW(self.d.parameters(), lr=2e-4, betas=(0.5, 0.999), weight_decay=0.05, **fused)
        self.gf = torch.compile(self.g, mode=compile_mode) if compile_models else self.g
        self.df = torch.compile(self.d, mode=compile_mode) if compile_models else self.d
        self.device = device
        self.dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(amp)
        self.scaler = torch.amp.GradScaler(device.type) if amp == "fp16" else None
        self.crit = torch.nn.BCEWithLogitsLoss()
        self.ones = self.zeros = None

    def _autocast(self):
        return torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None)

    def _backward(self, loss):
        (self.scaler.scale(loss) if self.scaler else loss).backward()

    def _step(self, opt):
        if self.scaler:
            self.scaler.step(opt)
        else:
            opt.step()

    def __call__(self, real, noise):
        b = real.size(0)
        if self.ones is None or self.ones.size(0) != b:
            self.ones = torch.ones(b, device=self.device)
            self.zeros = torch.zeros(b, device=self.device)
        self.d.zero_grad(set_to_none=True)
        with self._autocast():
            out_real = self.df(real)
            err_real = self.crit(out_real.float(), self.ones)
        self._backward(err_real)
        with self._autocast():
            fake = self.gf(noise)
            out_fake = self.df(fake.detach())
            err_fake = self.crit(out_fake.float(), self.zeros)
        self._backward(err_fake)
        self._step(self.opt_d)
        self.g.zero_grad(set_to_none=True)
        with self._autocast():
            out = self.df(fake)
            err_g = self.crit(out.float(), self.ones)
        self._backward(err_g)
        self._step(self.opt_g)
        if self.scaler:
            self.scaler.update()
        return (err_real + err_fake, err_g, torch.sigmoid(out_real.float()).mean(), torch.sigmoid(out_fake.float()).mean(),
                torch.sigmoid(out.float()).mean())


def parse_args(argv):
    ap = argparse.ArgumentParser(description="Time reference DCGAN training steps in PyTorch (CPU).")
    ap.add_argument("--preset", default="naive-64", choices=sorted(reference_dcgan.PRESETS))
    ap.add_argument("--batch", type=positive, default=128)
    ap.add_argument("--threads", type=positive, default=default_threads(),
                    help="intra-op threads (torch.set_num_threads); inter-op threads are always 1")
    ap.add_argument("--steps", type=positive, default=10, help="timed steps")
    ap.add_argument("--warmup", type=non_negative, default=2, help="untimed warm-up steps")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--amp", default="off", choices=["off", "bf16", "fp16"], help="autocast dtype (fp16: with a GradScaler)")
    ap.add_argument("--channels-last", action="store_true", help="NHWC models and batch")
    ap.add_argument("--compile", action="store_true", help="torch.compile G and D (PyTorch 2.x)")
    ap.add_argument("--compile-mode", default="default", choices=["default", "reduce-overhead", "max-autotune"],
                    help="torch.compile's mode (with --compile)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--repeat", type=positive, default=1, help="timed runs of --steps each (median, min, max reported)")
    ap.add_argument("--aug-noise", type=float, default=0.0,
                    help="Gaussian noise std in [0, 1] pixel units added on the device (as our bench's aug_noise)")
    ap.add_argument("--host-batch", dest="host_batch", action="store_true", default=None,
                    help="uint8 batch and z from pinned host memory every step (default on a GPU)")
    ap.add_argument("--device-batch", dest="host_batch", action="store_false", help="a batch and z made on the device once / per step")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)

    # Inter-op threads can only be set before any parallel work starts.
    torch.set_num_interop_threads(1)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)  # weight init

    g, d, p = reference_dcgan.build(args.preset)
    g.train()
    d.train()
    device = torch.device(args.device)
    plain = device.type == "cpu" and args.amp == "off" and not args.channels_last and not args.compile
    if plain:
        step = reference_dcgan.ReferenceStep(g, d, p["nz"])  # the reference's own step, unchanged
    else:
        step = DeviceStep(g, d, device, args.amp, args.channels_last, args.compile, args.compile_mode)

    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    host_batch = args.host_batch if args.host_batch is not None else device.type != "cpu"
    gen = torch.Generator(device=device).manual_seed(args.seed + 1)
    size = p["img_size"]
    if host_batch:
        host_gen = torch.Generator().manual_seed(args.seed + 1)
        pin = (lambda t: t.pin_memory()) if device.type == "cuda" else (lambda t: t)
        pixels = pin(torch.randint(0, 256, (args.batch, size, size, 3), generator=host_gen, dtype=torch.uint8))

        def batch():
            # As DeviceBatch::from: (B, S, S, 3) uint8 viewed as (B, 3, S, S) is channels-last already.
            real = pixels.to(device, non_blocking=True).permute(0, 3, 1, 2).float().mul_(2.0 / 255.0).sub_(1.0)
            if not args.channels_last:
                real = real.contiguous()
            if args.aug_noise > 0:
                real.add_(torch.randn(real.shape, generator=gen, device=device).mul_(2.0 * args.aug_noise))
            noise = pin(torch.randn(args.batch, p["nz"], 1, 1, generator=host_gen)).to(device, non_blocking=True)
            return real, noise
    else:
        fixed = torch.rand(args.batch, 3, size, size, generator=gen, device=device) * 2 - 1  # fixed real batch in [-1, 1)
        if args.channels_last:
            fixed = fixed.contiguous(memory_format=torch.channels_last)

        def batch():
            return fixed, torch.randn(args.batch, p["nz"], generator=gen, device=device)

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for _ in range(args.warmup):
        step(*batch())
    sync()

    metrics = None
    runs = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for _ in range(args.steps):
            metrics = step(*batch())
        values = torch.stack([m.detach().float().reshape(()) for m in metrics]).tolist()  # the one host sync
        runs.append(args.batch * args.steps / (time.perf_counter() - t0))
    ordered = sorted(runs)
    median = ordered[len(ordered) // 2]
    seconds = args.batch * args.steps / median

    last = dict(zip(METRIC_NAMES, values))
    if not all(math.isfinite(v) for v in values):
        print("train_step_reference.py: warning: non-finite metrics %s" % last, file=sys.stderr)

    result = {
        "preset": args.preset,
        "batch": args.batch,
        "threads": args.threads,
        "steps": args.steps,
        "warmup": args.warmup,
        "device": args.device,
        "amp": args.amp,
        "channels_last": args.channels_last,
        "compile": args.compile,
        "compile_mode": args.compile_mode if args.compile else None,
        "seconds": seconds,
        "repeat": args.repeat,
        "host_batch": host_batch,
        "aug_noise": args.aug_noise,
        "cudnn_benchmark": device.type == "cuda",
        "images_per_s": median,
        "images_per_s_min": ordered[0],
        "images_per_s_max": ordered[-1],
        "images_per_s_runs": runs,
        "last": last,
        "torch": torch.__version__,
        "blas": loaded_blas(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print("%s batch %d threads %d: %d steps in %.3f s, %.1f img/s (loss_d %.3f loss_g %.3f)"
              % (args.preset, args.batch, args.threads, args.steps, seconds, result["images_per_s"],
                 last["loss_d"], last["loss_g"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
