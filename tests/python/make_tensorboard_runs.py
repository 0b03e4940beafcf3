"""Writes TensorBoard runs as other trainers do, for tests/base/tensorboard/TensorBoardFollowerTest.cpp,
the trainer CLI tests and the app's tests. Needs PyTorch and the tensorboard package (tests/python/tb-env.sh).

OUT/reference/dcgan-msls/events/   PyTorch's own torch.utils.tensorboard.SummaryWriter, as the reference
                                   project logs: G_loss, D_loss, D_X, D_G_z1, D_G_z2 against images
                                   processed (batch 128), an "lr/G" and a "timing/data" tag, a fixed-noise
                                   grid image every 10 iterations, a histogram; then a restart: a second
                                   SummaryWriter into the same folder (a second event file) goes on.
OUT/reference/dcgan-msls/checkpoints/  the reference's checkpoint_<epoch>.pt beside events/ (tiny-32,
                                   reference_dcgan.py): epochs 0 and 1, img_list holding one
                                   make_grid(G(Z_fixed), padding=2, normalize=True) per saved epoch.
OUT/tf2/run-a/                     TensorBoard's own writers, TF2 style: tensor scalars (plugin "scalars")
                                   written by tensorboard.summary.Writer (float32), and by hand as TF2's
                                   C++ writer does (metadata on a tag's first value only) in float64 and
                                   float16; a text-plugin tensor and an image-plugin tensor.
OUT/expected.json                  what was written, in file order: per run {"scalars": [[step, tag, value]],
                                   "images": [[step, png_hex]], "histograms": N, "other": N, "files": N};
                                   the reference run's also "checkpoints": {name: {"epoch", "img_list":
                                   [{"width", "height", "sum", "pixels": [[x, y, r, g, b]]}]}}, each grid as
                                   save_image makes it 8-bit (mul(255).add(0.5).clamp(0, 255)).
Usage: make_tensorboard_runs.py OUT
"""
import io
import json
import math
import os
import struct
import sys

import numpy as np


def png_bytes(img_chw):
    from PIL import Image
    arr = (np.clip(img_chw, 0, 1) * 255 + 0.5).astype(np.uint8).transpose(1, 2, 0)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


def f32(v):
    return float(np.float32(v))


def reference_run(out, expected):
    from torch.utils.tensorboard import SummaryWriter
    import torch

    folder = os.path.join(out, "reference", "dcgan-msls", "events")
    rng = np.random.default_rng(7)
    rec = {"scalars": [], "images": [], "histograms": 0, "other": 0, "files": 2}
    images_seen = 0

    def log(writer, it):
        nonlocal images_seen
        step = it * 128  # the reference logs against the count of images processed
        for tag in ("G_loss", "D_loss", "D_X", "D_G_z1", "D_G_z2"):
            v = float(rng.uniform(0.05, 3.0))
            writer.add_scalar(tag, v, step)
            rec["scalars"].append([step, tag, f32(v)])
        lr = 2e-4 * (0.99 ** it)
        writer.add_scalar("lr/G", lr, step)
        rec["scalars"].append([step, "lr/G", f32(lr)])
        writer.add_scalar("timing/data", 0.01 * it, step)
        rec["scalars"].append([step, "timing/data", f32(0.01 * it)])
        if it % 10 == 0:
            img = rng.uniform(0, 1, size=(3, 32, 32)).astype(np.float32)
            writer.add_image("fixed_noise", torch.from_numpy(img), step)
            rec["images"].append([step, None])
            images_seen += 1
        if it % 20 == 0:
            # add_histogram of Debian's torch 1.13 fails on numpy 1.24 (np.greater with dtype): the raw form
            x = rng.normal(size=256)
            counts, limits = np.histogram(x, bins=8)
            writer.add_histogram_raw("D/weights", float(x.min()), float(x.max()), len(x), float(x.sum()), float((x * x).sum()),
                                     limits[1:].tolist(), counts.tolist(), step)
            rec["histograms"] += 1

    w = SummaryWriter(log_dir=folder)
    for it in range(0, 40):
        log(w, it)
    w.close()
    # The restart: a new writer (a new event file) in the same folder goes on from iteration 40.
    w = SummaryWriter(log_dir=folder)
    for it in range(40, 60):
        log(w, it)
    w.close()
    files = sorted(f for f in os.listdir(folder) if "tfevents" in f)
    assert len(files) == 2, files
    # The PNG bytes as the writer stored them (read back with TensorBoard's own loader).
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader as EventFileLoader  # no migration to tensors
    pngs = []
    for f in files:
        for e in EventFileLoader(os.path.join(folder, f)).Load():
            for v in e.summary.value:
                if v.HasField("image"):
                    pngs.append((e.step, v.image.encoded_image_string.hex()))
    assert len(pngs) == images_seen, (len(pngs), images_seen)
    rec["images"] = [[s, h] for s, h in pngs]
    rec["checkpoints"] = reference_checkpoints(os.path.join(out, "reference", "dcgan-msls", "checkpoints"))
    expected["reference/dcgan-msls/events"] = rec


def reference_checkpoints(folder):
    """The reference's checkpoints: at each saved epoch, img_list gains make_grid(G(Z_fixed)) and
    the whole dict is torch.saved to checkpoint_<epoch>.pt (as reference_resume.py does)."""
    import torch
    from torchvision.utils import make_grid
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from reference_dcgan import ReferenceStep, build

    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(11)
    g, d, p = build("tiny-32")
    step = ReferenceStep(g, d, p["nz"])
    z_fixed = torch.randn(16, p["nz"], 1, 1)
    losses, img_list, out = {"_G": [], "_D": []}, [], {}
    for epoch in range(2):
        for _ in range(3):
            z = torch.randn(8, p["nz"], 1, 1)
            err_d, err_g, *_ = step(torch.rand(8, 3, 32, 32) * 2 - 1, z)
            losses["_G"].append(err_g.item())
            losses["_D"].append(err_d.item())
        with torch.no_grad():
            img_list.append(make_grid(g(z_fixed).detach().cpu(), padding=2, normalize=True))
        name = "checkpoint_%d.pt" % epoch
        torch.save({"epoch": epoch, "D_state_dict": d.state_dict(), "G_state_dict": g.state_dict(), "D_optim": step.opt_d.state_dict(),
                    "G_optim": step.opt_g.state_dict(), "losses": losses, "img_list": img_list, "noise": z}, os.path.join(folder, name))
        grids = []
        for grid in img_list:
            u8 = grid.mul(255).add_(0.5).clamp_(0, 255).to(torch.uint8)
            h, w = u8.shape[1], u8.shape[2]
            pixels = [[x, y] + [int(v) for v in u8[:, y, x]] for x, y in ((0, 0), (w // 2 + 5, h // 3), (w - 3, h - 5), (17, 29))]
            grids.append({"width": w, "height": h, "sum": int(u8.to(torch.int64).sum()), "pixels": pixels})
        out[name] = {"epoch": epoch, "img_list": grids}
    return out


def tf2_run(out, expected):
    import tensorboard.summary as tbs
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    folder = os.path.join(out, "tf2", "run-a")
    rec = {"scalars": [], "images": [], "histograms": 0, "other": 0, "files": 1}
    w = EventFileWriter(folder)
    # tensorboard.summary.Writer writes into its own file; both are TensorBoard's own writers.
    writer2 = tbs.Writer(os.path.join(out, "tf2", "run-b"))
    rec_b = {"scalars": [], "images": [], "histograms": 0, "other": 0, "files": 1}

    def scalars_meta():
        return summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"))

    for step in range(30):
        t = 1.7e9 + step
        values = []
        v64 = 1.0 / (step + 1) + 1e-12  # needs float64 to round-trip
        values.append(summary_pb2.Summary.Value(
            tag="loss/train", metadata=scalars_meta() if step == 0 else None,
            tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, tensor_shape=tensor_shape_pb2.TensorShapeProto(), double_val=[v64])))
        rec["scalars"].append([step, "loss/train", v64])
        v16 = float(np.float16(0.5 + step / 64))
        values.append(summary_pb2.Summary.Value(
            tag="loss/half", metadata=scalars_meta() if step == 0 else None,
            tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_HALF, tensor_shape=tensor_shape_pb2.TensorShapeProto(),
                                          half_val=[int(np.array([v16], dtype=np.float16).view(np.uint16)[0])])))
        rec["scalars"].append([step, "loss/half", v16])
        vc = f32(math.sin(step))  # raw tensor_content, as TF's C++ writer stores it
        values.append(summary_pb2.Summary.Value(
            tag="G_loss", metadata=scalars_meta() if step == 0 else None,
            tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=tensor_shape_pb2.TensorShapeProto(),
                                          tensor_content=struct.pack("<f", vc))))
        rec["scalars"].append([step, "G_loss", vc])
        if step % 10 == 0:  # another plugin's tensor: counted, not a scalar
            values.append(summary_pb2.Summary.Value(
                tag="notes", metadata=summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text")),
                tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"step %d" % step])))
            rec["other"] += 1
        if step == 15:  # a TF2 image tensor: width, height, PNG
            png = png_bytes(np.full((3, 8, 12), 0.25, dtype=np.float32))
            values.append(summary_pb2.Summary.Value(
                tag="samples", metadata=summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="images")),
                tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"12", b"8", png])))
            rec["images"].append([step, png.hex()])
        w.add_event(event_pb2.Event(wall_time=t, step=step, summary=summary_pb2.Summary(value=values)))
        writer2.add_scalar("accuracy", step / 30.0, step=step, wall_time=t)
        rec_b["scalars"].append([step, "accuracy", f32(step / 30.0)])
    w.close()
    writer2.close()
    expected["tf2/run-a"] = rec
    expected["tf2/run-b"] = rec_b


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    expected = {}
    reference_run(out, expected)
    tf2_run(out, expected)
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)


if __name__ == "__main__":
    main()
