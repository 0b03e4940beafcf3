"""A stand-in for the reference project's image API, for the `serve` drop-in tests: a Flask app that
follows api/img_svc.py of DMW2151/msls-pytorch-dcgan and the helpers it imports from
model/msls/dcgan_utils.py. Run with Debian's /usr/bin/python3 (python3-torch, python3-torchvision,
python3-flask, python3-pil).

The code paths it follows:
- start-up: torch.load the checkpoint (get_checkpoint), build the generator and load its
  G_state_dict with any DDP "module." prefix dropped (restore_G_for_inference). Like the reference,
  the generator is never put in eval mode: BatchNorm normalises with the batch's statistics.
- GET /gan_imgs: z = torch.randn(16, nz, 1, 1), make_grid(G(z), padding=4, normalize=True, nrow=4),
  save_image as PNG, sent as image/png.
- GET /gan_gifs: gen_img_sequence_array(n_frames=16): two vectors torch.randn(1, nz, 1, 1); for each
  t in torch.linspace(0, 8, 16) the SLERP of slerp_noise_vect (z0 the second vector drawn), G,
  make_grid(padding=4, normalize=True, nrow=1) (one image: that image, min-max normalised),
  ToPILImage, then PIL's save_all GIF with duration=120, loop=0, optimize=True; sent as image/gif.
- GET / and /health: {"Health": "OK"} (Flask turns the dict into application/json).
- every response: the reference's after_request cache headers, and the headers flask_cors's
  CORS(app) adds with its default options (flask_cors is not packaged in Debian, so they are set
  here the way its get_cors_headers computes them: Access-Control-Allow-Origin "*" without an
  Origin header, the request's Origin echoed with Vary: Origin with one, and on a preflight the
  asked-for headers and every method).
The reference writes its images to /tmp files named by uuid4 and sends those; this sends the same
bytes from memory. Query parameters are never read, so any is ignored, as in the reference.

Usage: reference_api.py --checkpoint CK [--preset tiny-32] [--port 0]
Prints "port N" on stdout once listening on 127.0.0.1:N; serves until killed.
"""
import argparse
import collections
import io
import os
import sys

import torch
import torchvision.transforms as transforms
import torchvision.utils as vutils
from flask import Flask, request, send_file
from werkzeug.serving import make_server

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_dcgan as ref  # noqa: E402

# flask_cors's default `methods`, serialised as it sends them (sorted, joined by ", ").
CORS_METHODS = ", ".join(sorted(["GET", "HEAD", "POST", "OPTIONS", "PUT", "PATCH", "DELETE"]))

app = Flask(__name__)
G = None
NZ = None


def load_generator(path, preset):
    """get_checkpoint + restore_G_for_inference on the reference architecture of `preset`."""
    checkpoint = torch.load(path, map_location=torch.device("cpu"))
    p = ref.PRESETS[preset]
    g = ref.Generator(p["nz"], p["ngf"], p["img_size"])
    state = collections.OrderedDict()
    for key, value in checkpoint["G_state_dict"].items():
        state[key.replace("module.", "") if "module." in key else key] = value
    g.load_state_dict(state)
    return g, p["nz"]  # left in training mode, as the reference leaves it


def slerp(val, z0, z1):
    """slerp_noise_vect: norms over dim 1, omega from the normalised vectors, the endpoints kept."""
    z0n = z0 / torch.norm(z0, dim=1, keepdim=True)
    z1n = z1 / torch.norm(z1, dim=1, keepdim=True)
    omega = torch.acos((z0n * z1n).sum(1))
    so = torch.sin(omega)
    return (torch.sin((1.0 - val) * omega) / so).unsqueeze(1) * z0 + (torch.sin(val * omega) / so).unsqueeze(1) * z1


@torch.no_grad()
def gif_bytes(n_frames=16):
    """gen_img_sequence_array, into memory instead of a /tmp file."""
    z_h = torch.randn(1, NZ, 1, 1)
    z_l = torch.randn(1, NZ, 1, 1)
    frames = []
    for ratio in torch.linspace(0.0, 8.0, n_frames):
        images = G(slerp(ratio, z_l, z_h)).detach()
        grid = vutils.make_grid(images, padding=4, normalize=True, nrow=1).cpu()
        frames.append(transforms.ToPILImage()(grid.cpu()))
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=120, loop=0, optimize=True)
    out.seek(0)
    return out


@app.after_request
def reference_headers(r):
    # img_svc.py's add_header (its second Cache-Control assignment wins).
    r.headers["Pragma"] = "no-cache"
    r.headers["Expires"] = "0"
    r.headers["Cache-Control"] = "public, max-age=0"
    # CORS(app) with flask_cors's defaults: origins "*", send_wildcard False, always_send True,
    # vary_header True, allow_headers "*", methods all.
    origin = request.headers.get("Origin")
    r.headers.add("Access-Control-Allow-Origin", origin if origin else "*")
    if request.method == "OPTIONS":
        method = request.headers.get("Access-Control-Request-Method", "").upper()
        if method and method in CORS_METHODS.split(", "):
            asked = request.headers.get("Access-Control-Request-Headers")
            if asked:
                r.headers["Access-Control-Allow-Headers"] = ", ".join(sorted(h.strip() for h in asked.split(",")))
            r.headers["Access-Control-Allow-Methods"] = CORS_METHODS
    if origin:
        r.headers.add("Vary", "Origin")
    return r


@app.route("/health")
def health_check():
    return {"Health": "OK"}


@app.route("/")
def root_check():
    return {"Health": "OK"}


@app.route("/gan_imgs")
def generate_static_img():
    z = torch.randn(16, NZ, 1, 1)
    grid = vutils.make_grid(G(z).detach(), padding=4, normalize=True, nrow=4).cpu()
    out = io.BytesIO()
    vutils.save_image(grid, out, format="png")
    out.seek(0)
    return send_file(out, mimetype="image/png")


@app.route("/gan_gifs")
def generate_gif():
    return send_file(gif_bytes(n_frames=16), mimetype="image/gif")


def main():
    global G, NZ
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--preset", default="tiny-32", choices=sorted(ref.PRESETS))
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)
    G, NZ = load_generator(args.checkpoint, args.preset)
    # The reference runs app.run(debug=True): Werkzeug's threaded development server, the one
    # make_server builds (without the debugger's reloader, which would fork a second process).
    server = make_server("127.0.0.1", args.port, app, threaded=True)
    print("port %d" % server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
