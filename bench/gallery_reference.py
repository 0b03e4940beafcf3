#!/usr/bin/python3
"""The reference project's small Flask image API, for bench/bench_serve.sh.

Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision, python3-flask,
python3-pil). It serves the logic of the reference's api/img_svc.py and
msls/dcgan_utils.gen_img_sequence_array:

  /health     {"Health": "OK"}
  /gan_imgs   Z = torch.randn(16, nz, 1, 1); make_grid(G(Z).detach(), padding=4, normalize=True,
              nrow=4); save_image to a uuid-named PNG under a temp folder; send_file
  /gan_gifs   two z ~ N(0, 1); for each of 16 ratios in [0, 1]: slerp_noise_vect (the reference's
              LW-GAN SLERP), G on that one vector, to a PIL image; PIL saves the GIF
              (save_all, duration=80, loop=0, optimize=True) to a uuid-named file; send_file

Faithful on purpose, including what costs time: G runs without torch.no_grad() for /gan_imgs (the
reference's route has none; gen_img_sequence_array has @torch.no_grad()), each GIF frame is its
own generator call, files go through the file system, and the reference's after_request headers
are added. Departures, each because the reference code cannot run as written:
  - gen_img_sequence_array refers to an undefined num_rows and self.root; here a frame is one
    image (the two-keyframe walk the brief and our /gan_gifs render), ratios run over [0, 1]
    (the reference's linspace(0, 8) extrapolates far past the second keyframe), and the float
    image in [-1, 1] is mapped to [0, 1] before ToPILImage (the reference hands it a numpy
    array in [-1, 1]);
  - the temp files are deleted once read (the reference leaves them in /tmp forever);
  - the generator's mode is --mode: "train" (default) is the reference as written (it never calls
    G.eval(), so BatchNorm uses batch statistics), "eval" matches our server's semantics.
The generator is tests/python/reference_dcgan.py's, which has the reference's layer layout; the
weights come from `streetgan-trainer export --checkpoint CK --format state-dict --out F.pt`.

Served by Flask's development server (Werkzeug) with threaded=True: a thread per request, what the
reference's app.run() gives (debug off: the debugger and the reloader are not part of serving).
"""
import argparse
import collections
import io
import os
import shutil
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))

try:
    import torch
    import torchvision.utils as vutils
    from torchvision import transforms
    from flask import Flask, send_file
except ImportError as e:  # pragma: no cover
    sys.exit("gallery_reference.py: %s; run it with /usr/bin/python3 (python3-torch, python3-torchvision, "
             "python3-flask)" % e)

import reference_dcgan  # noqa: E402


def slerp_noise_vect(val, Z_0, Z_1):
    """The reference's SLERP (from LW-GAN), verbatim."""
    Z_0_norm = Z_0 / torch.norm(Z_0, dim=1, keepdim=True).to("cpu")
    Z_1_norm = Z_1 / torch.norm(Z_1, dim=1, keepdim=True).to("cpu")
    omega = torch.acos((Z_0_norm * Z_1_norm).sum(1))
    so = torch.sin(omega)
    res = (torch.sin((1.0 - val) * omega) / so).unsqueeze(1) * Z_0 + (
        torch.sin(val * omega) / so
    ).unsqueeze(1) * Z_1
    return res


def load_generator(path, mode):
    sd = torch.load(path, map_location="cpu")
    gsd = sd["G_state_dict"]
    # restore_G_for_inference: strip "module." (DDP)
    mutated = collections.OrderedDict((k.replace("module.", ""), v) for k, v in gsd.items())
    nz = mutated["main.0.weight"].shape[0]
    ngf = mutated["main.0.weight"].shape[1] // 8
    stages = sum(1 for k in mutated if k.endswith(".weight") and mutated[k].dim() == 4)
    img_size = 2 ** (stages + 1)
    G = reference_dcgan.Generator(nz, ngf, img_size)
    G.load_state_dict(mutated)
    if mode == "eval":
        G.eval()
    return G, nz


def make_app(G, nz, tmpdir):
    app = Flask(__name__)

    @app.after_request
    def add_header(r):
        r.headers["Cache-Control"] = "no-cache, no-store, must-revalidate"
        r.headers["Pragma"] = "no-cache"
        r.headers["Expires"] = "0"
        r.headers["Cache-Control"] = "public, max-age=0"
        return r

    def send_and_remove(path, mimetype):
        with open(path, "rb") as f:
            data = f.read()
        os.remove(path)
        return send_file(io.BytesIO(data), mimetype=mimetype)

    @app.route("/health")
    def health_check():
        return {"Health": "OK"}

    @app.route("/gan_imgs")
    def generate_static_img():
        Z = torch.randn(16, nz, 1, 1)
        g = vutils.make_grid(G(Z).detach(), padding=4, normalize=True, nrow=4).cpu()
        path = os.path.join(tmpdir, "%s.png" % uuid.uuid4())
        vutils.save_image(g, path)
        return send_and_remove(path, "image/png")

    @app.route("/gan_gifs")
    def generate_gif():
        with torch.no_grad():
            frames = []
            Z_h, Z_l = torch.randn(1, nz), torch.randn(1, nz)
            for ratio in torch.linspace(0.0, 1.0, 16):
                Z_i = slerp_noise_vect(ratio, Z_l, Z_h)
                img = G(Z_i.view(1, nz, 1, 1)).detach()[0]
                frames.append(transforms.ToPILImage()(img.add(1).div(2).clamp(0, 1)))
            path = os.path.join(tmpdir, "%s-sequence.gif" % uuid.uuid4())
            frames[0].save(path, save_all=True, append_images=frames[1:], duration=80, loop=0, optimize=True)
        return send_and_remove(path, "image/gif")

    return app


def make_checkpoint(path, preset, seed):
    """A reference-format checkpoint (torch.save of {epoch, G_state_dict, D_state_dict}) of a freshly
    initialised `preset` with a trained model's contrast: BatchNorm running variances in
    [0.001, 0.01] and the output layer x20, so that images span [-1, 1] and GIFs have real colours
    to quantise (an untrained generator gives near-uniform grey, which flatters any encoder)."""
    torch.manual_seed(seed)
    g, d, _ = reference_dcgan.build(preset)
    with torch.no_grad():
        for name, buf in g.named_buffers():
            if name.endswith("running_var"):
                buf.uniform_(0.001, 0.01)
            elif name.endswith("running_mean"):
                buf.normal_(0, 0.01)
        convs = [m for m in g.modules() if isinstance(m, torch.nn.ConvTranspose2d)]
        convs[-1].weight.mul_(20)
    torch.save({"epoch": 0, "G_state_dict": g.state_dict(), "D_state_dict": d.state_dict()}, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--make-checkpoint", metavar="OUT",
                    help="write a contrast-boosted freshly initialised reference checkpoint to OUT and exit")
    ap.add_argument("--preset", default="naive-64", help="preset for --make-checkpoint")
    ap.add_argument("--seed", type=int, default=1, help="weight seed for --make-checkpoint")
    ap.add_argument("--state-dict", help="file from streetgan-trainer export --format state-dict")
    ap.add_argument("--port", type=int, default=5000)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0: torch's default)")
    ap.add_argument("--mode", choices=("train", "eval"), default="train",
                    help="generator mode: train is the reference as written (no G.eval())")
    args = ap.parse_args()
    if args.make_checkpoint:
        make_checkpoint(args.make_checkpoint, args.preset, args.seed)
        return
    if not args.state_dict:
        ap.error("--state-dict is required (or --make-checkpoint)")
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    G, nz = load_generator(args.state_dict, args.mode)
    tmpdir = tempfile.mkdtemp(prefix="gallery-reference-")
    try:
        import logging
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log line per request
        print("gallery_reference: torch %s, %d intra-op threads, mode %s, http://%s:%d"
              % (torch.__version__, torch.get_num_threads(), args.mode, args.host, args.port), flush=True)
        make_app(G, nz, tmpdir).run(host=args.host, port=args.port, threaded=True, debug=False)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    main()
