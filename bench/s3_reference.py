"""Helper of bench_s3.sh: the S3 reference pipeline, AWS's s3torchconnector (its S3MapDataset, one
GET per image through the AWS Common Runtime) feeding PIL decode and the reference augmentation
(bench/loader_reference.py's transforms) through a DataLoader with as many workers as our loader
has threads; and the upload of the bench's photos, so that every side reads the same objects.
Runs in the venv bench_s3.sh makes (s3torchconnector from pip, Debian's torch and torchvision).
Credentials from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), path-style addressing
on --endpoint.

  s3_reference.py upload --endpoint URL --bucket B --prefix P --from DIR
  s3_reference.py run --endpoint URL --bucket B --prefix P [--size 64 --threads 2 --batch 32 --seconds 8] --json

`run` prints one JSON document like `streetgan-trainer bench loader --json`."""
import argparse
import io
import json
import os
import sys
import time

from PIL import Image
from s3torchconnector import S3ClientConfig, S3MapDataset
from s3torchconnector._s3client import S3Client
from torch.utils.data import DataLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loader_reference import reference_transform  # noqa: E402

REGION = "us-east-1"


def config():
    return S3ClientConfig(force_path_style=True)


def upload(a):
    from concurrent.futures import ThreadPoolExecutor

    client = S3Client(region=REGION, endpoint=a.endpoint, s3client_config=config())
    paths = [os.path.join(folder, name) for folder, _, files in os.walk(a.source) for name in sorted(files)]

    def put(path):
        key = a.prefix.rstrip("/") + "/" + os.path.relpath(path, a.source)
        with open(path, "rb") as f:
            writer = client.put_object(a.bucket, key)
            writer.write(f.read())
            writer.close()

    with ThreadPoolExecutor(16) as pool:  # one PUT at a time would take minutes for thousands
        list(pool.map(put, paths))
    print(json.dumps({"uploaded": len(paths)}))


class Decode:
    """S3Reader -> PIL RGB image -> the reference transform (a class, so DataLoader workers pickle it)."""

    def __init__(self, size):
        self.tf = reference_transform(size)

    def __call__(self, reader):
        return self.tf(Image.open(io.BytesIO(reader.read())).convert("RGB"))


def run(a):
    import torch

    torch.set_num_threads(1)
    ds = S3MapDataset.from_prefix("s3://%s/%s/" % (a.bucket, a.prefix.strip("/")), region=REGION, endpoint=a.endpoint,
                                  transform=Decode(a.size), s3client_config=config())
    dl = DataLoader(ds, batch_size=a.batch, shuffle=True, num_workers=a.threads, drop_last=True, persistent_workers=True)
    images, it = 0, iter(dl)
    for _ in range(a.threads):  # warm-up: listing done, workers started, first batches made
        next(it)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < a.seconds:
        try:
            x = next(it)
        except StopIteration:
            it = iter(dl)
            continue
        images += x.size(0)
    s = time.perf_counter() - t0
    out = {"images_per_s": images / s, "threads": a.threads, "size": a.size, "batch": a.batch, "seconds": s,
           "source": "s3torchconnector S3MapDataset s3://%s/%s at %s" % (a.bucket, a.prefix, a.endpoint)}
    print(json.dumps(out) if a.json else "%.1f images/s (%d workers)" % (out["images_per_s"], a.threads))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["upload", "run"])
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--bucket", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--from", dest="source")
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    upload(a) if a.what == "upload" else run(a)


if __name__ == "__main__":
    main()
