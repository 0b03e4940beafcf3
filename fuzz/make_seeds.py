#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<name>/ (docs/fuzzing.md).

Usage: fuzz/make_seeds.py [CORPUS_DIR]   (Debian's /usr/bin/python3 with python3-torch; default:
the corpus folder beside this script)

Seeds are small real inputs: torch.save files of tiny state dicts, zip/tar/tar.gz data sets,
TensorBoard event files framed as TensorBoardWriter frames them, and hand-written events.jsonl,
run.json, latent sessions, ssh configs and control requests. Files named seed_* are rewritten;
regression inputs (crash-*, regress_*) are never touched. Deterministic output.
"""
import collections
import io
import json
import os
import struct
import sys
import tarfile
import zipfile

import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed_" + name), "wb") as f:
        f.write(data)


# --- checkpoint / pickle: torch.save archives and their data.pkl -------------------------------
def saved(obj, protocol=2):
    buf = io.BytesIO()
    torch.save(obj, buf, pickle_protocol=protocol)
    return buf.getvalue()


def data_pkl(archive):
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        return z.read(next(n for n in z.namelist() if n.endswith("/data.pkl")))


torch.manual_seed(0)
conv = torch.nn.Conv2d(3, 2, 2)
bn = torch.nn.BatchNorm2d(2)
state = collections.OrderedDict(list(conv.state_dict().items()) + [("bn." + k, v) for k, v in bn.state_dict().items()])
base = torch.arange(12, dtype=torch.float32)
samples = {
    "state_dict": state,
    "checkpoint": {"epoch": 3, "step": 120, "generator": state, "config": {"nz": 8, "lr": 2e-4, "preset": "tiny-32"},
                   "losses": [0.5, 0.25], "fixed_noise": torch.zeros(2, 4, 1, 1)},
    "views": {"a": base, "view": base[2:8].view(2, 3).t(), "bf16": torch.ones(3, dtype=torch.bfloat16),
              "i64": torch.tensor([1, -2], dtype=torch.int64), "b": torch.tensor([True, False]),
              "half": torch.ones(2, dtype=torch.float16), "param": torch.nn.Parameter(torch.ones(2))},
    "values": {"int": 7, "big": 2 ** 70, "neg": -300000, "float": 1.5, "str": "straße", "bytes": b"\x00\xff",
               "tuple": (1, (2, 3)), "none": None, "set": {1, 2}, 3: "int key", "list": [[], {}]},
}
for name, obj in samples.items():
    for protocol in (2, 4):
        archive = saved(obj, protocol)
        put("checkpoint", f"{name}_p{protocol}.pt", archive)
        put("pickle", f"{name}_p{protocol}.pkl", data_pkl(archive))

# --- archive: the data set archive formats ------------------------------------------------------
files = [("train_val/city/database/images/k1.jpg", b"\xff\xd8\xff\xe0" + bytes(range(64)) + b"\xff\xd9"),
         ("train_val/city/database/images/k2.jpg", b"\xff\xd8\xff\xe0" + bytes(200) + b"\xff\xd9"),
         ("train_val/city/database/postprocessed.csv", b"key,lat,lon\nk1,1.0,2.0\nk2,1.5,2.5\n")]
for method, label in ((zipfile.ZIP_STORED, "stored"), (zipfile.ZIP_DEFLATED, "deflated")):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for n, d in files:
            info = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, d)
    put("archive", f"{label}.zip", buf.getvalue())
for mode, label in (("w", "tar"), ("w:gz", "tar.gz")):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.USTAR_FORMAT) as t:
        d = tarfile.TarInfo("train_val/city")
        d.type = tarfile.DIRTYPE
        t.addfile(d)
        for n, data in files:
            info = tarfile.TarInfo(n)
            info.size = len(data)
            info.mtime = 1577836800
            t.addfile(info, io.BytesIO(data))
    raw = buf.getvalue()
    if label == "tar.gz":  # fixed gzip mtime, so that the seed is reproducible
        raw = raw[:4] + b"\0\0\0\0" + raw[8:]
    put("archive", label, raw)


# --- tfrecord: TensorBoard event files ----------------------------------------------------------
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def record(data):
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked(head)) + data + struct.pack("<I", masked(data))


def event(t, step=None, version=None, values=()):
    e = field(1, 1, struct.pack("<d", t))
    if step is not None:
        e += field(2, 0, varint(step))
    if version:
        e += field(3, 2, version.encode())
    if values:
        e += field(5, 2, b"".join(field(1, 2, v) for v in values))
    return e


scalar = field(1, 2, b"loss_d") + field(2, 5, struct.pack("<f", 0.75))
image = field(1, 2, b"samples") + field(4, 2, field(1, 0, varint(2)) + field(2, 0, varint(2)) + field(3, 0, varint(3)) +
                                       field(4, 2, b"\x89PNG\r\n\x1a\n" + bytes(16)))
events = [event(1700000000.0, version="brain.Event:2"), event(1700000001.5, 10, values=[scalar]), event(1700000002.0, 20, values=[image, scalar])]
put("tfrecord", "run.tfevents", b"".join(record(e) for e in events))
put("tfrecord", "torn.tfevents", b"".join(record(e) for e in events)[:-7])
put("tfrecord", "event.pb", events[2])

# --- events: events.jsonl and attach lines ------------------------------------------------------
jsonl = [
    {"kind": "status", "t": 1700000000.25, "state": "running", "pid": 4242, "device": "cpu", "data": "synthetic", "resumed_from": "", "step": 0, "total_steps": 600},
    {"kind": "data", "t": 1700000000.5, "source": "folder:/data/msls", "images": 1000, "steps_per_epoch": 7, "skipped": {}},
    {"kind": "metrics", "t": 1700000001.0, "step": 10, "epoch": 1, "total_steps": 600, "loss_d": 1.25, "loss_g": 0.75, "d_x": 0.5,
     "d_g_z1": 0.4, "d_g_z2": 0.3, "lr": 0.0002, "img_per_s": 120.5, "data_wait": 0.01},
    {"kind": "system", "t": 1700000002.0, "step": 10, "cpu_percent": 180.0, "rss_mb": 512.5, "read_mb_s": 3.5, "gpu_util": None, "gpu_mem_mb": None, "gpu_mem_total_mb": None},
    {"kind": "checkpoint", "t": 1700000003.0, "step": 100, "epoch": 1, "path": "checkpoints/checkpoint_1.pt"},
    {"kind": "sample", "t": 1700000003.5, "step": 100, "epoch": 1, "path": "samples/step_100.png"},
    {"kind": "metric", "t": 1700000004.0, "step": 100, "fid": 123.5, "kid": None, "kid_unavailable": "too few samples", "kid_std": None,
     "timing": {"real_features": 1.5, "generated_features": 2.0, "metrics": 0.1}, "warnings": ["few samples"]},
    {"kind": "control", "t": 1700000005.0, "cmd": "set-lr", "step": 120, "value": 0.0001},
    {"kind": "error", "t": 1700000006.0, "step": 121, "message": "rejected control command: unknown control command 'x'"},
    {"kind": "status", "t": 1700000007.0, "state": "finished", "step": 600},
]
lines = [json.dumps(e, separators=(",", ":")) for e in jsonl]
put("events", "run.jsonl", "\n".join(lines) + "\n")
put("events", "unicode.jsonl", json.dumps({"kind": "error", "t": 1.0, "message": "caf\u00e9 \u2603 \"quoted\"\n", "x": [1, {"y": None}]}, ensure_ascii=False) +
    "\n" + json.dumps({"kind": "future", "t": 2.0}) + "\n[1,2]\n{\"kind\":\"metrics\",\"step\":1e3,\"loss_d\":" + "\n")
attach = [{"offset": 0, "end": len(lines[0]) + 1, "event": jsonl[0]}, {"live": True, "offset": 300, "state": "running"},
          {"end": True, "offset": 900, "state": "finished"}, {"reply": {"ok": True, "cmd": "pause"}}]
put("events", "attach.jsonl", "\n".join(json.dumps(a, separators=(",", ":")) for a in attach) + "\n")

# --- runjson: run.json as the trainer writes it -------------------------------------------------
config = {"preset": "naive-64", "nz": 100, "ngf": 64, "ndf": 64, "nc": 3, "img_size": 64, "data": "synthetic", "synthetic_images": 16384,
          "max_shift": 0.2, "crop_factor": 4.0, "aug_noise": 0.05, "flip": False, "cities": [], "exclude_cities": ["amman"],
          "max_per_sequence": 0, "validation_percent": 0.0, "seed": 0, "device": "auto", "batch": 128, "steps": 0, "epochs": 5,
          "lr": 0.0002, "betas": [0.5, 0.999], "weight_decay": 0.05, "eps": 1e-08, "real_label": 1.0, "fake_label": 0.0,
          "instance_noise": 0.0, "instance_noise_steps": 0, "amp": "off", "log_every": 10, "sample_every": 200, "checkpoint_every": 1000,
          "loader_threads": 2, "prefetch": 4, "threads": 0, "channels_last": True, "fixed_noise": 64, "metric_every_checkpoints": 0,
          "metric_features": "", "metric_samples": 2000, "metrics": ["fid", "kid", "pr"], "metric_cache_dir": ""}
run = {"start_time": 1700000000.0, "version": "0.1.0", "host": "box", "config": config, "data_source": "synthetic", "device": "cpu",
       "world_size": 1, "total_steps": 640, "steps_per_epoch": 128, "resumes": [{"t": 1700000100.0, "step": 64, "checkpoint": "checkpoints/checkpoint_1.pt"}]}
put("runjson", "run.json", json.dumps(run, indent=2) + "\n")
put("runjson", "partial.json", json.dumps({"config": {"preset": "tiny-32", "steps": 50, "batch": 16, "device": "cpu"}}))

# --- latent: latent explorer session files ------------------------------------------------------
session = {"checkpoint": "checkpoints/checkpoint_5.pt", "checkpoint_sha256": "ab" * 32,
           "keyframes": [{"seed": 1}, {"seed": 2, "easing": "ease-in-out", "t_range": [0.0, 2.0]}, {"z": [0.5, -1.0, 0.25, 0.0]}],
           "interpolation": "slerp", "easing": "linear", "frames_per_segment": 8, "loop": True, "size": 128, "frame_delay_ms": 80,
           "truncation": 1.0, "directions": [{"index": 0, "amount": 1.5}], "pca_components": 10, "pca_samples": 2000, "pca_seed": 0,
           "upscale": "nearest", "nrow": 8, "padding": 2, "gif_palette": "per-frame", "gif_dithering": 0.0, "gif_speed": 8, "gif_loop_count": 0}
put("latent", "session.json", json.dumps(session, indent=2) + "\n")
put("latent", "reference.json", json.dumps({"checkpoint": "g.pt", "keyframes": [{"seed": 7}, {"seed": 9}], "t_range": [0, 8],
                                            "frames_per_segment": 15, "loop": False}))

# --- sshconfig ----------------------------------------------------------------------------------
put("sshconfig", "config", """# global
ServerAliveInterval 30
IdentityFile ~/.ssh/id_ed25519

Host gpu gpu-*.example.org !gpu-old.example.org
    HostName %h.internal
    User alice
    Port 2222
    ProxyJump bob@jump.example.org:22,jump2
    IdentityFile "~/.ssh/id gpu"
    IdentitiesOnly yes

Host jump
  HostName=10.0.0.1
  User = bob

Match host foo exec "true"
  User nobody

Match all
  Port 22
""")
put("sshconfig", "jumps", "alice@gpu:2222,[::1]:22,bob@jump\nHost *\n\tUser root\r\n")

# --- control: control socket requests -----------------------------------------------------------
put("control", "requests", "\n".join(json.dumps(r) for r in [{"cmd": "pause"}, {"cmd": "resume"}, {"cmd": "set-lr", "value": 0.0001},
                                                              {"cmd": "set-lr", "value": -1}, {"cmd": "checkpoint-now"}, {"cmd": "sample-now"},
                                                              {"cmd": "stop"}, {"cmd": "bogus"}]) + "\nnot json\n{\"cmd\": 3}\n")
