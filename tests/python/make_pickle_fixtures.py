#!/usr/bin/env python3
"""Fixtures for TorchPickleReaderTest: torch.save files and the values they must read back as.

Usage: make_pickle_fixtures.py OUTDIR    (Debian's /usr/bin/python3 with python3-torch)

Writes into OUTDIR:
  reference.pt      a tiny-32 checkpoint saved exactly as the reference project saves it, after
                    real ReferenceStep training steps (so the AdamW state is populated)
  prefixed.pt       the same checkpoint with DDP-style `module.` state-dict keys, written through
                    a file object (archive folder "archive" instead of "reference"), where one
                    tensor is a non-contiguous view and two tensors share one storage
  edge_p2.pt        edge values (ints of all widths, floats, nested containers, unicode, int keys,
                    tensors of many dtypes, numpy array, Parameter, recursive list) with protocol 2
  edge_p4.pt        the same with pickle_protocol=4 (FRAME, MEMOIZE, SHORT_BINUNICODE, ...)
  cuda_location.pt  a hand-written archive whose storage claims location 'cuda:0'
  legacy.pt         the same edge values in the legacy (pre-1.6) non-zip torch.save format
  bare_pickle.pt    pickle.dump of a dict (not a torch.save archive)
  torchscript.pt    a torch.jit.save'd module
  expected.json     {"reference": ENC, "prefixed": ENC, "edge": ENC, "cuda_location": ENC,
                     "prefixed_checks": {...}}

ENC encodes a value tree: int/float/str/bool/None as themselves, list -> JSON list,
{"tuple": [...]}, {"dict": [[key, value], ...]} (insertion order, keys encoded too),
{"bytes": "<hex>"}, {"float": "nan"|"inf"|"-inf"}, {"opaque": "module.qualname"},
{"recursive": true} for a reference back to a containing list, and
{"tensor": {"dtype", "shape", "stride", "offset", "sum", "abs_sum", "first"}} where sum/abs_sum
are float64 sums of all elements and first holds up to 8 flattened values.
"""
import collections
import io
import json
import math
import os
import pickle
import sys
import zipfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_grid_ref import make_grid  # noqa: E402
from reference_dcgan import ReferenceStep, build  # noqa: E402

DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32", torch.int16: "int16",
    torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
}


def enc_tensor(t):
    t = t.detach()
    flat = t.reshape(-1)
    if t.dtype.is_floating_point:
        first = [float(v) for v in flat[:8].double().tolist()]
    elif t.dtype == torch.bool:
        first = [bool(v) for v in flat[:8].tolist()]
    else:
        first = [int(v) for v in flat[:8].tolist()]
    return {"tensor": {
        "dtype": DTYPE_NAMES[t.dtype],
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "offset": t.storage_offset(),
        "sum": float(t.double().sum()),
        "abs_sum": float(t.double().abs().sum()),
        "first": first,
    }}


def opaque_name(obj):
    if isinstance(obj, torch.dtype):
        return "torch." + str(obj).split(".")[-1]
    fn = obj.__reduce_ex__(2)[0]
    return fn.__module__ + "." + fn.__qualname__


def enc(v, path=()):
    if any(v is p for p in path):
        return {"recursive": True}
    path = path + (v,)
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        if -2**63 <= v < 2**63:
            return v
        return {"opaque": "builtins.int (out of int64 range)"}
    if isinstance(v, float):
        if math.isnan(v):
            return {"float": "nan"}
        if math.isinf(v):
            return {"float": "inf" if v > 0 else "-inf"}
        return v
    if isinstance(v, bytes):
        return {"bytes": v.hex()}
    if isinstance(v, torch.Tensor):
        return enc_tensor(v)
    if isinstance(v, dict):
        return {"dict": [[enc(k, path), enc(x, path)] for k, x in v.items()]}
    if isinstance(v, tuple):
        return {"tuple": [enc(x, path) for x in v]}
    if isinstance(v, (list, set, frozenset)):
        return [enc(x, path) for x in v]
    return {"opaque": opaque_name(v)}


def reference_checkpoint():
    torch.manual_seed(20240607)
    g, d, p = build("tiny-32")
    nz = p["nz"]
    step = ReferenceStep(g, d, nz)
    fixed_noise = torch.randn(64, nz, 1, 1)
    g_losses, d_losses, img_list = [], [], []
    for i in range(3):
        real = torch.rand(8, 3, p["img_size"], p["img_size"]) * 2 - 1
        err_d, err_g, _, _, _ = step(real, torch.randn(8, nz, 1, 1))
        g_losses.append(err_g.item())
        d_losses.append(err_d.item())
        if i != 1:
            with torch.no_grad():
                fake = g(fixed_noise).detach().cpu()
            img_list.append(make_grid(fake[:16], padding=2, normalize=True))
    return {
        "epoch": 3,
        "D_state_dict": d.state_dict(),
        "G_state_dict": g.state_dict(),
        "D_optim": step.opt_d.state_dict(),
        "G_optim": step.opt_g.state_dict(),
        "losses": [g_losses, d_losses],
        "img_list": img_list,
        "noise": fixed_noise,
    }


def prefixed_checkpoint(ckpt):
    """DDP-style keys; G's first weight stored as a non-contiguous view, G's first BatchNorm weight
    and bias sharing one storage (the bias at a non-zero storage offset)."""
    g_sd = ckpt["G_state_dict"]
    keys = list(g_sd.keys())
    w_key, bn_w, bn_b = keys[0], "main.1.weight", "main.1.bias"
    w = g_sd[w_key]
    noncontig = w.transpose(0, 1).contiguous().transpose(0, 1)
    assert torch.equal(noncontig, w) and not noncontig.is_contiguous()
    flat = torch.cat([g_sd[bn_w].reshape(-1), g_sd[bn_b].reshape(-1)])
    n = g_sd[bn_w].numel()
    shared = {bn_w: flat[:n].view_as(g_sd[bn_w]), bn_b: flat[n:].view_as(g_sd[bn_b])}

    def prefix(sd, replace):
        out = collections.OrderedDict()
        for k, v in sd.items():
            out["module." + k] = replace.get(k, v)
        out._metadata = collections.OrderedDict(("module." + k if k else "module", m) for k, m in sd._metadata.items())
        return out

    copy = dict(ckpt)
    copy["G_state_dict"] = prefix(g_sd, {w_key: noncontig, **shared})
    copy["D_state_dict"] = prefix(ckpt["D_state_dict"], {})
    checks = {
        "noncontiguous": ["G_state_dict", "module." + w_key],
        "shared": [["G_state_dict", "module." + bn_w], ["G_state_dict", "module." + bn_b]],
    }
    return copy, checks


def edge_values():
    recursive = [1]
    recursive.append(recursive)
    shared_list = [7, 8]
    return {
        "ints": [0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 65535, 65536, -32768, -65537,
                 2**31 - 1, -2**31, 2**31, -2**31 - 1, 2**32, 2**40, -2**40, 2**62, 2**63 - 1, -2**63],
        "huge_int": 2**70,
        "huger_int": -(2**2100),
        "floats": [0.0, -0.0, 1.5, -2.25, 0.1, 1e-300, 1e300, 5e-324, float("inf"), float("-inf"), float("nan")],
        "nested": (1, (2, [3, {"a": (4,), "b": []}]), [], (), {}),
        "tuples": [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4)],
        "bools": [True, False],
        "none": None,
        "unicode": "h\u00e9llo w\u00f6rld \u2713 \U0001F600 \u65e5\u672c",
        "empty_str": "",
        "long_str": "x" * 300,
        "int_keys": {0: "zero", 1: "one", -5: "minus five", 2**40: "big"},
        "bytes": b"\x00\x01\x7f\x80\xff",
        "empty_bytes": b"",
        "set": {42},
        "shared_list": [shared_list, shared_list],
        "recursive": recursive,
        "tensors": {
            "bf16": torch.tensor([1.5, -2.0, 3.25, 1e30], dtype=torch.bfloat16),
            "half": torch.tensor([[0.5, -1.0], [65504.0, 6e-5]], dtype=torch.float16),
            "int64": torch.tensor([-(2**40), 0, 2**40, 2**63 - 1]),
            "int32": torch.tensor([-(2**31), 2**31 - 1], dtype=torch.int32),
            "int16": torch.tensor([-300, 300], dtype=torch.int16),
            "int8": torch.tensor([-128, 127], dtype=torch.int8),
            "uint8": torch.tensor([0, 127, 255], dtype=torch.uint8),
            "bool": torch.tensor([True, False, True]),
            "float64": torch.tensor([1.0 / 3.0, -1e-200], dtype=torch.float64),
            "scalar": torch.tensor(7.25),
            "empty": torch.zeros(0, 3),
            "strided": torch.arange(24, dtype=torch.float32).view(4, 6)[1:, ::2],
        },
        "parameter": torch.nn.Parameter(torch.tensor([1.0, 2.0])),
        "numpy": np.arange(6, dtype=np.float32).reshape(2, 3),
        "device": torch.device("cpu"),
        "dtype": torch.float32,
    }


class _CudaPickler(pickle.Pickler):
    """Pickles tensors like torch.save, but claims every storage lives on cuda:0."""

    def __init__(self, f, storages):
        super().__init__(f, protocol=2)
        self.storages = storages

    def persistent_id(self, obj):
        if isinstance(obj, torch.storage.TypedStorage):
            key = str(len(self.storages))
            self.storages[key] = obj
            return ("storage", torch.FloatStorage, key, "cuda:0", obj.size())
        return None


def write_cuda_location(path):
    value = {"w": torch.arange(6, dtype=torch.float32).view(2, 3) * 0.5}
    storages = {}
    buf = io.BytesIO()
    _CudaPickler(buf, storages).dump(value)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("cudackpt/data.pkl", buf.getvalue())
        for key, s in storages.items():
            z.writestr("cudackpt/data/" + key, torch.empty(0, dtype=s.dtype).set_(s).numpy().tobytes())
        z.writestr("cudackpt/version", "3\n")
    return value


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    expected = {}

    ckpt = reference_checkpoint()
    torch.save(ckpt, os.path.join(out, "reference.pt"))
    expected["reference"] = enc(ckpt)

    prefixed, checks = prefixed_checkpoint(ckpt)
    with open(os.path.join(out, "prefixed.pt"), "wb") as f:
        torch.save(prefixed, f)
    expected["prefixed"] = enc(prefixed)
    expected["prefixed_checks"] = checks

    edge = edge_values()
    torch.save(edge, os.path.join(out, "edge_p2.pt"))
    torch.save(edge, os.path.join(out, "edge_p4.pt"), pickle_protocol=4)
    expected["edge"] = enc(edge)

    expected["cuda_location"] = enc(write_cuda_location(os.path.join(out, "cuda_location.pt")))

    torch.save({"a": torch.ones(2)}, os.path.join(out, "legacy.pt"), _use_new_zipfile_serialization=False)
    with open(os.path.join(out, "bare_pickle.pt"), "wb") as f:
        pickle.dump({"a": 1}, f, protocol=2)
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), os.path.join(out, "torchscript.pt"))

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, allow_nan=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
