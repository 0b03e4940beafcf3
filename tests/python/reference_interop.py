"""Reference-side halves of the checkpoint interop tests (run with Debian's /usr/bin/python3).

  make OUTDIR [--prefix]   trains the reference tiny-32 DCGAN for 3 steps, saves a reference-style
                           checkpoint OUTDIR/reference.pt (optionally DDP `module.`-prefixed) and
                           PyTorch's own eval-mode outputs OUTDIR/outputs.pt: {"g_out": G(noise),
                           "d_out": D(G(noise))}
  check EXPORT OUTPUTS     loads a StreetGAN export with torch.load, builds the reference G and D
                           with strict load_state_dict, and compares their eval-mode outputs on
                           the export's noise with the tensors in OUTPUTS (written by C++);
                           prints JSON {"g_max_abs_diff", "d_max_abs_diff"}; exit 1 on mismatch
  state A KEY_A B KEY_B    torch.load of both files: the largest difference between the state
                           dicts A[KEY_A] and B[KEY_B] (null when their keys differ), and A's keys
                           and its "G_source"; prints JSON {"max_abs_diff", "keys", "g_source"}
  reference-load CK        the reference's inference loader (restore_G_for_inference: "module."
                           stripped, strict load_state_dict) on CK's G_state_dict; prints JSON
                           {"loaded": true, "equals_g_state_dict": ..., "differs_from_g_ema": max |G - G_ema|}
"""
import collections
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_dcgan as ref  # noqa: E402


def make(outdir, prefix):
    torch.manual_seed(7)
    g, d, p = ref.build("tiny-32")
    step = ref.ReferenceStep(g, d, p["nz"])
    for i in range(3):
        real = torch.rand(8, 3, 32, 32) * 2 - 1
        step(real, torch.randn(8, p["nz"], 1, 1))
    noise = torch.randn(64, p["nz"], 1, 1)

    def sd(m):
        s = m.state_dict()
        if prefix:
            s = collections.OrderedDict(("module." + k, v) for k, v in s.items())
        return s

    torch.save({"epoch": 2, "D_state_dict": sd(d), "G_state_dict": sd(g), "D_optim": step.opt_d.state_dict(),
                "G_optim": step.opt_g.state_dict(), "losses": [[0.5, 0.4], [1.5, 1.2]], "img_list": [], "noise": noise},
               os.path.join(outdir, "reference.pt"))
    g.eval()
    d.eval()
    with torch.no_grad():
        out = g(noise)
        torch.save({"g_out": out, "d_out": d(out)}, os.path.join(outdir, "outputs.pt"))


def check(export_path, outputs_path):
    ck = torch.load(export_path)
    cpp = torch.load(outputs_path)
    assert isinstance(ck["G_state_dict"], dict) and all(torch.is_tensor(v) for v in ck["G_state_dict"].values())
    g, d, p = ref.build("tiny-32")
    g.load_state_dict(ck["G_state_dict"], strict=True)
    d.load_state_dict(ck["D_state_dict"], strict=True)
    g.eval()
    d.eval()
    with torch.no_grad():
        out = g(ck["noise"])
        dout = d(out)
    res = {"g_max_abs_diff": (out - cpp["g_out"]).abs().max().item(), "d_max_abs_diff": (dout - cpp["d_out"]).abs().max().item(),
           "keys": sorted(ck.keys())}
    print(json.dumps(res))
    return 0 if res["g_max_abs_diff"] < 1e-5 and res["d_max_abs_diff"] < 1e-4 else 1


def state(a, key_a, b, key_b):
    x, y = torch.load(a), torch.load(b)
    sa, sb = x[key_a], y[key_b]
    diff = None
    if sorted(sa.keys()) == sorted(sb.keys()):
        diff = max((sa[k].double() - sb[k].double()).abs().max().item() for k in sa)
    print(json.dumps({"max_abs_diff": diff, "keys": list(x.keys()), "g_source": x.get("G_source")}))
    return 0


def reference_load(path):
    ck = torch.load(path)
    g, _, _ = ref.build("tiny-32")
    g.load_state_dict(collections.OrderedDict((k.replace("module.", ""), v) for k, v in ck["G_state_dict"].items()), strict=True)
    loaded = g.state_dict()
    same = all(torch.equal(loaded[k], ck["G_state_dict"][k]) for k in loaded)
    ema = ck.get("G_ema_state_dict")
    differs = None if ema is None else max((loaded[k].double() - ema[k].double()).abs().max().item() for k in loaded)
    print(json.dumps({"loaded": True, "equals_g_state_dict": same, "differs_from_g_ema": differs}))
    return 0 if same else 1


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], "--prefix" in sys.argv)
    elif sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "state":
        sys.exit(state(*sys.argv[2:6]))
    elif sys.argv[1] == "reference-load":
        sys.exit(reference_load(sys.argv[2]))
    else:
        sys.exit("usage: reference_interop.py make OUTDIR [--prefix] | check EXPORT OUTPUTS | state A KEY_A B KEY_B | reference-load CK")
