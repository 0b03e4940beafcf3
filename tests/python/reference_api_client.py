"""The reference project's blog, as an HTTP client: what docs/gan-blog/posts/gallery.html of
DMW2151/msls-pytorch-dcgan asks of its image API, and what a page on another origin fetching the
same images by script and a deployment's health probe ask. Run with Debian's /usr/bin/python3
(python3-pil); only the standard library talks HTTP.

  observe BASE_URL   prints one JSON object describing BASE_URL's answers (below); exit 0 unless
                     the server cannot be reached

The page embeds <img src=".../gan_imgs"> and <img width=64 height=64 src=".../gan_gifs">: a browser
fetches those with its image Accept header, a Referer and no Origin (no-cors). A script on the
blog's origin would fetch() them with an Origin header (a simple request: no preflight), and a
request with a custom header is preflighted with OPTIONS first. Probes GET / and /health.

Observation keys (a status is an int; a missing header is null):
  img, gif              the <img> loads: status, content_type (without parameters), format, size
                        [w, h], acao (Access-Control-Allow-Origin); gif also frames, durations
                        (ms per frame, as PIL reads them), loop (NETSCAPE loop count, null: none)
  img_fetch, gif_fetch  the script fetches: status, acao, cors_ok (a browser lets the script read it)
  preflight             OPTIONS /gan_gifs for GET with X-Requested-With: status, ok (a browser goes on)
  health                {"/": ..., "/health": ...}: status, content_type, json (null if not JSON)
  cache_buster          {path: {status, content_type, size}} for ?t=1699999999 on both images
  bad_known             {path: {status, body}} for out-of-range values of our known parameters
"""
import http.client
import io
import json
import sys
import urllib.parse

from PIL import Image

PAGE_ORIGIN = "https://blog.example.org"
PAGE = PAGE_ORIGIN + "/gan-blog/posts/gallery.html"
BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
IMG_HEADERS = {"User-Agent": BROWSER, "Accept": "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "Referer": PAGE,
               "Sec-Fetch-Dest": "image", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Site": "cross-site"}
FETCH_HEADERS = {"User-Agent": BROWSER, "Accept": "*/*", "Referer": PAGE, "Origin": PAGE_ORIGIN, "Sec-Fetch-Dest": "empty",
                 "Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "cross-site"}
BAD_KNOWN = ["/gan_imgs?n=0", "/gan_imgs?nrow=abc", "/gan_imgs?seed=-1", "/gan_gifs?frames=1", "/gan_gifs?size=99999", "/gan_gifs?seed=x"]


def request(base, method, path, headers):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        conn.request(method, path, headers=headers)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def content_type(headers):
    ct = headers.get("content-type")
    return ct.split(";")[0].strip() if ct else None


def cors_ok(headers, origin):
    """The CORS check a browser makes on a response to a request without credentials."""
    acao = headers.get("access-control-allow-origin")
    return acao == "*" or acao == origin


def image(base, path):
    status, headers, body = request(base, "GET", path, IMG_HEADERS)
    out = {"status": status, "content_type": content_type(headers), "acao": headers.get("access-control-allow-origin")}
    try:
        im = Image.open(io.BytesIO(body))
        out.update(format=im.format, size=list(im.size))
        if im.format == "GIF":
            durations = []
            for i in range(im.n_frames):
                im.seek(i)
                durations.append(im.info.get("duration"))
            out.update(frames=im.n_frames, durations=durations, loop=im.info.get("loop"))
    except Exception as e:  # not an image: say what came instead
        out.update(format=None, error=str(e), body=body[:200].decode("utf-8", "replace"))
    return out


def fetch(base, path):
    status, headers, _ = request(base, "GET", path, FETCH_HEADERS)
    return {"status": status, "acao": headers.get("access-control-allow-origin"), "cors_ok": cors_ok(headers, PAGE_ORIGIN)}


def preflight(base, path):
    h = dict(FETCH_HEADERS, **{"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-requested-with"})
    status, headers, _ = request(base, "OPTIONS", path, h)
    methods = [m.strip().upper() for m in headers.get("access-control-allow-methods", "").split(",") if m.strip()]
    allowed = [x.strip().lower() for x in headers.get("access-control-allow-headers", "").split(",") if x.strip()]
    ok = 200 <= status < 300 and cors_ok(headers, PAGE_ORIGIN) and (not methods or "GET" in methods or "*" in methods) and \
        ("x-requested-with" in allowed or "*" in allowed)
    return {"status": status, "ok": ok, "acao": headers.get("access-control-allow-origin")}


def health(base, path):
    status, headers, body = request(base, "GET", path, {"User-Agent": "kube-probe/1.27", "Accept": "*/*"})
    try:
        j = json.loads(body)
    except ValueError:
        j = None
    return {"status": status, "content_type": content_type(headers), "json": j}


def observe(base):
    obs = {"img": image(base, "/gan_imgs"), "gif": image(base, "/gan_gifs"), "img_fetch": fetch(base, "/gan_imgs"),
           "gif_fetch": fetch(base, "/gan_gifs"), "preflight": preflight(base, "/gan_gifs"),
           "health": {p: health(base, p) for p in ("/", "/health")}, "cache_buster": {}, "bad_known": {}}
    for p in ("/gan_imgs?t=1699999999", "/gan_gifs?t=1699999999"):
        im = image(base, p)
        obs["cache_buster"][p] = {"status": im["status"], "content_type": im["content_type"], "size": im.get("size")}
    for p in BAD_KNOWN:
        status, _, body = request(base, "GET", p, IMG_HEADERS)
        obs["bad_known"][p] = {"status": status, "body": body.decode("utf-8", "replace") if status >= 400 else None}
    return obs


def main(argv):
    if len(argv) != 3 or argv[1] != "observe":
        sys.exit("usage: reference_api_client.py observe BASE_URL")
    try:
        print(json.dumps(observe(argv[2].rstrip("/")), sort_keys=True))
    except OSError as e:
        sys.exit("reference_api_client: cannot reach %s: %s" % (argv[2], e))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
