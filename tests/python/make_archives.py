"""Writes the ArchiveReader test fixtures: a folder tree in the MSLS layout and the same files as
a zip (deflated and stored entries, a directory entry), a tar and a tar.gz.

usage: make_archives.py OUT_DIR   (creates OUT_DIR/src/..., OUT_DIR/batch.zip, .tar, .tar.gz)
Also names longer than a tar header's 100 bytes in each tar format and a zip:
longnames-gnu.tar, longnames-pax.tar.gz, longnames-ustar.tar (prefix + name), longnames.zip.
Deterministic (seeded); about 12 MiB of incompressible bytes across ~60 files so that the tar.gz
has several 4 MiB access points.
"""
import gzip
import io
import os
import random
import sys
import tarfile
import zipfile


def main(out):
    rng = random.Random(1234)
    src = os.path.join(out, "src")
    files = []  # relative names, in archive order

    def put(rel, data):
        path = os.path.join(src, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        files.append(rel)

    put("train_val/cityA/database/postprocessed.csv",
        b"".join(b"%d,key%d,%d.5,%d.25,False\n" % (i, i, i * 3, i * 7) for i in range(400)))
    put("train_val/cityA/query/raw.csv", b"key,lon,lat\nabc,1.0,2.0\n")
    put("empty.txt", b"")
    for i in range(60):
        city = "cityA" if i < 30 else "cityB"
        size = rng.randint(60_000, 360_000)
        put("train_val/%s/database/images/k%03d.jpg" % (city, i), rng.randbytes(size))
    put("train_val/cityB/notes.txt", b"street view " * 5000)

    with zipfile.ZipFile(os.path.join(out, "batch.zip"), "w") as z:
        z.writestr(zipfile.ZipInfo("train_val/"), b"")  # a directory entry
        for n, rel in enumerate(files):
            z.write(os.path.join(src, rel), rel,
                    compress_type=zipfile.ZIP_DEFLATED if n % 2 == 0 else zipfile.ZIP_STORED)
    for mode, name in (("w", "batch.tar"), ("w:gz", "batch.tar.gz")):
        with tarfile.open(os.path.join(out, name), mode, format=tarfile.PAX_FORMAT) as t:
            t.add(os.path.join(src, "train_val"), "train_val", recursive=False)  # a directory entry
            for rel in files:
                t.add(os.path.join(src, rel), rel)
    with open(os.path.join(out, "list.txt"), "w") as f:
        f.write("\n".join(files) + "\n")

    # The same tar as two concatenated gzip members (as some parallel compressors write).
    with open(os.path.join(out, "batch.tar"), "rb") as f:
        tar = f.read()
    half = len(tar) // 2 + 12345
    with open(os.path.join(out, "multi.tar.gz"), "wb") as f:
        f.write(gzip.compress(tar[:half]) + gzip.compress(tar[half:]))

    # Compressible text (deflate back-references cross the access points), 16 MiB uncompressed.
    words = [b"street", b"view", b"camera", b"night", b"day", b"city", b"road", b"sign", b"tree", b"car"]
    text = []
    with tarfile.open(os.path.join(out, "text.tar.gz"), "w:gz", format=tarfile.GNU_FORMAT) as t:
        for i in range(16):
            name = "text/part%02d.txt" % i
            data = b" ".join(rng.choice(words) + b"%d" % rng.randint(0, 999) for _ in range(150_000))[: 1 << 20]
            put(name, data)
            text.append(name)
            t.add(os.path.join(src, name), name)
    with open(os.path.join(out, "text.txt"), "w") as f:
        f.write("\n".join(text) + "\n")

    # Other layouts: a zip written to a pipe (sizes in data descriptors after each entry), a zip
    # with zip64 local headers and a bzip2 tar (decompressed from the start on every read).
    small = files[:6]

    class Pipe(io.RawIOBase):
        def __init__(self, f):
            self.f = f

        def writable(self):
            return True

        def write(self, b):
            return self.f.write(b)

    with open(os.path.join(out, "stream.zip"), "wb") as raw:
        with zipfile.ZipFile(Pipe(raw), "w") as z:
            for n, rel in enumerate(small):
                with open(os.path.join(src, rel), "rb") as fin, z.open(
                        zipfile.ZipInfo(rel), "w") as fout:
                    fout.write(fin.read())
    with zipfile.ZipFile(os.path.join(out, "zip64.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        for rel in small:  # zip64 extra fields in the local headers (as in batches over 4 GiB)
            with open(os.path.join(src, rel), "rb") as fin, z.open(rel, "w", force_zip64=True) as fout:
                fout.write(fin.read())
    with tarfile.open(os.path.join(out, "small.tar.bz2"), "w:bz2") as t:
        for rel in small:
            t.add(os.path.join(src, rel), rel)

    # Long names: past the 100-byte name field (GNU 'L' headers, pax 'x' headers), and split into
    # ustar's 155-byte prefix + 100-byte name.
    deep = "train_val/" + "/".join("%s_%02d" % ("segment" * 4, i) for i in range(4))
    long_names = ["%s/image_with_a_rather_long_name_%02d_%s.jpg" % (deep, i, "x" * 40) for i in range(5)]
    ustar_names = ["%s/k%02d.jpg" % (deep, i) for i in range(5)]
    for rel in long_names + ustar_names:
        put(rel, rng.randbytes(rng.randint(1000, 40_000)))
    for mode, name, fmt, names in (("w", "longnames-gnu.tar", tarfile.GNU_FORMAT, long_names),
                                   ("w:gz", "longnames-pax.tar.gz", tarfile.PAX_FORMAT, long_names),
                                   ("w", "longnames-ustar.tar", tarfile.USTAR_FORMAT, ustar_names)):
        with tarfile.open(os.path.join(out, name), mode, format=fmt) as t:
            for rel in names:
                t.add(os.path.join(src, rel), rel)
    with zipfile.ZipFile(os.path.join(out, "longnames.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        for rel in long_names:
            z.write(os.path.join(src, rel), rel)


if __name__ == "__main__":
    main(sys.argv[1])
