"""The reference project's checkpoint code paths, run against StreetGAN's files (Debian's
/usr/bin/python3 with python3-torch and python3-torchvision). Each subcommand follows one path of
DMW2151/msls-pytorch-dcgan step for step (written anew here, on the CPU, with the model of
reference_dcgan.py); they print one JSON document and exit 1 when a check fails.

  resume ROOT ST_EPOCH N_EPOCHS [--images N] [--batch B] [--log-frequency F] [--save-frequency S]
      gpu_dcgan.start_or_resume_training_run: get_checkpoint(ROOT/checkpoint_ST_EPOCH.pt),
      restore_model (strict load_state_dict of D and G, load_state_dict of both AdamWs), then
      cur_epoch = checkpt["epoch"], losses = checkpt["losses"], Z_fixed = checkpt["noise"],
      img_list = checkpt["img_list"]; trains epochs cur_epoch..N_EPOCHS-1 over N random images,
      appends err_G/err_D to losses["_G"]/["_D"] every F-th batch of an epoch, and at each saved
      epoch appends make_grid(G(Z_fixed)) to img_list and torch.saves the reference's dict to
      ROOT/checkpoint_EPOCH.pt. As the reference does, "noise" is saved as the last batch's Z
      (not Z_fixed).
  inspect CK
      torch.load(CK): its keys, epoch, losses, img_list length and noise shape, and each img_list grid
      as save_image makes it 8-bit (mul(255).add(0.5).clamp(0, 255)): [width, height, sum of values].
  api-load SLIM --seed N --count K --nrow R --padding P --png PNG
      api/img_svc.get_generator: get_checkpoint + restore_G_for_inference (strip "module.",
      strict load_state_dict) into a fresh generator; checks SLIM is the reference's slim layout
      (its full key set, every value None but epoch and G_state_dict, then our G_source); runs the API's /gan_imgs
      draw once (G as the API leaves it, in train mode); then draws torch.manual_seed(N);
      torch.randn(K, nz, 1, 1) in eval mode (as `streetgan-trainer sample` does), makes
      save_image's uint8 grid and compares it with PNG (max difference 1 level: rounding).
"""
import argparse
import collections
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision.utils as vutils
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_dcgan as ref  # noqa: E402

REFERENCE_KEYS = ["epoch", "D_state_dict", "G_state_dict", "D_optim", "G_optim", "losses", "img_list", "noise"]
DEV = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def get_checkpoint(path):
    # dcgan_utils.get_checkpoint: torch.load onto the device the process runs on
    return torch.load(path, map_location=DEV)


def get_network(module, lr=0.0002, betas=(0.5, 0.999), weight_decay=0.05):
    # TrainingConfig.get_network: the module on the device and its AdamW (DDP only with CUDA,
    # which these tests do not use: state-dict keys stay unprefixed)
    module = module.to(DEV)
    return module, torch.optim.AdamW(module.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)


def build(preset):
    p = ref.PRESETS[preset]
    return ref.Generator(p["nz"], p["ngf"], p["img_size"]), ref.Discriminator(p["ndf"], p["img_size"]), p


def resume(args):
    torch.manual_seed(0)
    g, d, p = build(args.preset)
    D, opt_D = get_network(d)
    G, opt_G = get_network(g)
    path = os.path.join(args.root, "checkpoint_%d.pt" % args.st_epoch)
    checkpt = get_checkpoint(path)
    # dcgan_utils.restore_model
    D.load_state_dict(checkpt["D_state_dict"])
    G.load_state_dict(checkpt["G_state_dict"])
    opt_D.load_state_dict(checkpt["D_optim"])
    opt_G.load_state_dict(checkpt["G_optim"])
    cur_epoch = checkpt["epoch"]
    losses = checkpt["losses"]
    Z_fixed = checkpt["noise"]
    img_list = checkpt["img_list"]
    report = {"resumed_from": path, "start_epoch": cur_epoch, "losses_in": {"_G": list(losses["_G"]), "_D": list(losses["_D"])},
              "img_list_in": len(img_list), "noise_in_shape": list(Z_fixed.shape),
              "g_optim_step_in": max(int(s["step"]) for s in opt_G.state_dict()["state"].values())}

    criterion = nn.BCEWithLogitsLoss().to(DEV)
    cuda = DEV.type == "cuda"
    scaler_D = torch.cuda.amp.GradScaler(enabled=cuda)
    scaler_G = torch.cuda.amp.GradScaler(enabled=cuda)
    gen = torch.Generator().manual_seed(args.seed)
    images = torch.rand(args.images, 3, p["img_size"], p["img_size"], generator=gen) * 2 - 1
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images), batch_size=args.batch, shuffle=False)

    steps, saved = 0, []
    for epoch in range(cur_epoch, args.n_epochs):
        for epoch_step, batch in enumerate(dl, start=0):
            real_imgs = batch[0].to(DEV)
            b_size = real_imgs.size(0)
            Z = torch.randn(b_size, p["nz"], 1, 1, device=DEV)
            label = torch.full((b_size,), 1.0, device=DEV)
            D.zero_grad()
            with torch.autocast("cuda", enabled=cuda):
                output = D(real_imgs.detach()).view(-1)
                err_D_real = criterion(output, label)
            scaler_D.scale(err_D_real).backward()
            fake = G(Z)
            label.fill_(0.0)
            with torch.autocast("cuda", enabled=cuda):
                output = D(fake.detach()).view(-1)
                err_D_fake = criterion(output, label)
            scaler_D.scale(err_D_fake).backward()
            err_D = err_D_real + err_D_fake
            scaler_D.step(opt_D)
            scaler_D.update()
            G.zero_grad()
            label.fill_(1.0)
            with torch.autocast("cuda", enabled=cuda):
                output = D(fake).view(-1)
                err_G = criterion(output, label)
            scaler_G.scale(err_G).backward()
            scaler_G.step(opt_G)
            scaler_G.update()
            steps += 1
            if (epoch_step % args.log_frequency) == 0:
                losses["_G"].append(err_G.item())
                losses["_D"].append(err_D.item())
        if (epoch % args.save_frequency == 0) | (epoch == args.n_epochs - 1):
            with torch.no_grad():
                generated_images = G(Z_fixed).detach().cpu()
                img_list.append(vutils.make_grid(generated_images, padding=2, normalize=True))
            out = os.path.join(args.root, "checkpoint_%d.pt" % epoch)
            torch.save({"epoch": epoch, "D_state_dict": D.state_dict(), "G_state_dict": G.state_dict(), "D_optim": opt_D.state_dict(),
                        "G_optim": opt_G.state_dict(), "losses": losses, "img_list": img_list, "noise": Z}, out)
            saved.append(out)
    report.update({"steps": steps, "saved": saved, "losses_out": losses, "img_list_out": len(img_list)})
    print(json.dumps(report))
    return 0


def inspect(args):
    ck = torch.load(args.checkpoint, map_location="cpu")
    losses = ck.get("losses")
    if isinstance(losses, dict):
        losses = {k: [float(x) for x in v] for k, v in losses.items()}
    noise = ck.get("noise")
    grids = []
    for g in ck.get("img_list") or []:
        u8 = g.float().mul(255).add_(0.5).clamp_(0, 255).to(torch.uint8)
        grids.append([int(u8.shape[-1]), int(u8.shape[-2]), int(u8.to(torch.int64).sum())])
    print(json.dumps({"grids": grids, "keys": sorted(ck.keys()), "epoch": ck.get("epoch"), "step": ck.get("step"), "format": ck.get("format"), "losses": losses,
                      "img_list": None if ck.get("img_list") is None else len(ck["img_list"]),
                      "noise_shape": list(noise.shape) if torch.is_tensor(noise) else None}))
    return 0


def restore_G_for_inference(checkpoint, G):
    gsd = checkpoint["G_state_dict"]
    mutated = collections.OrderedDict()
    for k, v in gsd.items():
        mutated[k.replace("module.", "") if "module." in k else k] = v
    G.load_state_dict(mutated)


def api_load(args):
    checkpoint = get_checkpoint(args.slim)
    problems = []
    # The reference's keys in its order, then StreetGAN's "G_source" (which generator G_state_dict
    # is: "ema" or "raw"), which the reference's loader never reads.
    if list(checkpoint.keys()) != REFERENCE_KEYS + ["G_source"]:
        problems.append("keys %s, expected %s" % (list(checkpoint.keys()), REFERENCE_KEYS + ["G_source"]))
    if checkpoint.get("G_source") not in ("ema", "raw"):
        problems.append("G_source is %r, expected ema or raw" % checkpoint.get("G_source"))
    for k, v in checkpoint.items():
        if k not in ("epoch", "G_state_dict", "G_source") and v is not None:
            problems.append("%s is %s, expected None" % (k, type(v).__name__))
    if not isinstance(checkpoint.get("epoch"), int):
        problems.append("epoch is not an int")
    g, _, p = build(args.preset)
    G, _ = get_network(g)
    restore_G_for_inference(checkpoint, G)

    # The API's own draw (/gan_imgs) on its own copy: G as get_generator returns it, never put in
    # eval mode, so each draw normalises with the batch's statistics and moves BatchNorm's running
    # statistics (which is why the comparison below uses a second, untouched copy).
    api_g, _ = get_network(build(args.preset)[0])
    restore_G_for_inference(checkpoint, api_g)
    with torch.no_grad():
        api_grid = vutils.make_grid(api_g(torch.randn(16, p["nz"], 1, 1, device=DEV)).detach(), padding=4, normalize=True, nrow=4).cpu()
    expected_side = 4 * (p["img_size"] + 4) + 4
    if list(api_grid.shape) != [3, expected_side, expected_side]:
        problems.append("API grid shape %s" % list(api_grid.shape))

    G.eval()
    torch.manual_seed(args.seed)
    z = torch.randn(args.count, p["nz"], 1, 1)
    with torch.no_grad():
        grid = vutils.make_grid(G(z.to(DEV)).cpu(), nrow=args.nrow, padding=args.padding, normalize=True)
    mine = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to(torch.uint8).numpy().astype(np.int32)
    theirs = np.asarray(Image.open(args.png).convert("RGB")).astype(np.int32)
    if mine.shape != theirs.shape:
        problems.append("grid %s vs PNG %s" % (mine.shape, theirs.shape))
        diff, differing = 255, 1.0
    else:
        delta = np.abs(mine - theirs)
        diff, differing = int(delta.max()), float((delta > 0).mean())
    if diff > 1:
        problems.append("pixels differ by up to %d levels" % diff)
    print(json.dumps({"keys": list(checkpoint.keys()), "epoch": checkpoint.get("epoch"), "max_pixel_diff": diff, "differing_fraction": differing,
                      "problems": problems}))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("resume")
    r.add_argument("root")
    r.add_argument("st_epoch", type=int)
    r.add_argument("n_epochs", type=int)
    r.add_argument("--images", type=int, default=32)
    r.add_argument("--batch", type=int, default=8)
    r.add_argument("--log-frequency", type=int, default=2)
    r.add_argument("--save-frequency", type=int, default=1)
    r.add_argument("--preset", default="tiny-32")
    r.add_argument("--seed", type=int, default=0)
    i = sub.add_parser("inspect")
    i.add_argument("checkpoint")
    a = sub.add_parser("api-load")
    a.add_argument("slim")
    a.add_argument("--preset", default="tiny-32")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--count", type=int, default=16)
    a.add_argument("--nrow", type=int, default=4)
    a.add_argument("--padding", type=int, default=4)
    a.add_argument("--png", required=True)
    args = ap.parse_args()
    return {"resume": resume, "inspect": inspect, "api-load": api_load}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
