"""Writes the archives the S3 archive reader's tests read beside ArchiveReader's
(make_archives.py): layouts S3ArchiveReader reads by ranged requests and ArchiveReader from the
mapped file (the same parsers, ZipFormat and TarFormat), so that both listings can be compared on
the same bytes.

usage: make_s3_archives.py OUT_DIR
  many.zip       70,000 small entries: the ZIP64 end record and locator (more than 65,535 entries)
  zip64all.zip   every size and offset in ZIP64 extra fields, local and central (as a writer of
                 batches over 4 GiB does), deflated, with an archive comment
  gnu.tar        GNU format: long names ('L'), a long link target ('K'), links, a FIFO, a folder
  pax.tar        pax format: long and non-ASCII paths in 'x' headers, links, a FIFO
  ustar.tar      ustar: names split into prefix + name
  small.tar      200 entries of 1-3 KiB (the read-ahead's request count)
  bzip2.zip      a stored entry and a bzip2 one (a method the S3 reader refuses by name)
Deterministic (seeded); a few MiB in all.
"""
import io
import os
import random
import struct
import sys
import tarfile
import zipfile
import zlib


def zip64_all(path, items, comment):
    out, cd = bytearray(), bytearray()
    for name, data in items:
        n = name.encode()
        comp = zlib.compressobj(6, zlib.DEFLATED, -15)
        c = comp.compress(data) + comp.flush()
        crc = zlib.crc32(data)
        off = len(out)
        extra = struct.pack("<HHQQ", 1, 16, len(data), len(c))
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(n), len(extra)) + n + extra + c
        cextra = struct.pack("<HHQQQ", 1, 24, len(data), len(c), off)
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(n), len(cextra), 0, 0, 0, 0,
                          0xFFFFFFFF) + n + cextra
    cd_offset = len(out)
    out += cd
    end64 = len(out)
    out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, len(items), len(items), len(cd), cd_offset)
    out += struct.pack("<IIQI", 0x07064B50, 0, end64, 1)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, len(comment)) + comment
    with open(path, "wb") as f:
        f.write(out)


def info(name, kind, link=""):
    t = tarfile.TarInfo(name)
    t.type = kind
    t.linkname = link
    t.mtime = 1700000000
    return t


def tars(out, rng):
    long_dir = "train_val/" + "x" * 60 + "/database/images"
    files = [
        ("train_val/cityA/database/images/k000.jpg", rng.randbytes(5000)),
        (long_dir + "/" + "y" * 70 + ".jpg", rng.randbytes(7000)),
        ("train_val/cityA/database/postprocessed.csv", b"key,sequence_key\nk000,s1\n"),
        ("train_val/cityA/empty.jpg", b""),
    ]
    for fmt, name in ((tarfile.GNU_FORMAT, "gnu.tar"), (tarfile.PAX_FORMAT, "pax.tar"), (tarfile.USTAR_FORMAT, "ustar.tar")):
        entries = list(files)
        if fmt == tarfile.PAX_FORMAT:
            entries.append(("train_val/caf\u00e9/database/images/\u00e9t\u00e9.jpg", rng.randbytes(3000)))
        if fmt != tarfile.USTAR_FORMAT:
            entries.append(("train_val/" + "z" * 150 + ".jpg", rng.randbytes(2000)))
        with tarfile.open(os.path.join(out, name), "w", format=fmt) as t:
            t.addfile(info("train_val/", tarfile.DIRTYPE))
            for rel, data in entries:
                ti = info(rel, tarfile.REGTYPE)
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
            t.addfile(info("train_val/cityA/database/images/sym.jpg", tarfile.SYMTYPE, "k000.jpg"))
            t.addfile(info("train_val/cityA/database/images/hard.jpg", tarfile.LNKTYPE, "train_val/cityA/database/images/k000.jpg"))
            t.addfile(info("train_val/cityA/pipe.jpg", tarfile.FIFOTYPE))
            if fmt != tarfile.USTAR_FORMAT:
                t.addfile(info("train_val/cityA/far.jpg", tarfile.SYMTYPE, "../" * 40 + "k000.jpg"))
    with tarfile.open(os.path.join(out, "small.tar"), "w", format=tarfile.PAX_FORMAT) as t:
        for i in range(200):
            data = rng.randbytes(rng.randint(1024, 3072))
            ti = info("train_val/cityC/database/images/s%03d.jpg" % i, tarfile.REGTYPE)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(4711)
    with zipfile.ZipFile(os.path.join(out, "many.zip"), "w", zipfile.ZIP_STORED) as z:
        for i in range(70000):
            z.writestr("train_val/cityM/database/images/m%05d.jpg" % i, b"%d" % i)
    items = [("train_val/cityZ/database/images/z%02d.jpg" % i, rng.randbytes(rng.randint(1000, 40000)) + b"\0" * 5000) for i in range(12)]
    zip64_all(os.path.join(out, "zip64all.zip"), items, b"a batch comment " * 40)
    tars(out, rng)
    with zipfile.ZipFile(os.path.join(out, "bzip2.zip"), "w") as z:
        z.writestr("plain.txt", b"stored " * 100, zipfile.ZIP_STORED)
        z.writestr("packed.txt", b"bzip2 " * 100, zipfile.ZIP_BZIP2)


if __name__ == "__main__":
    main(sys.argv[1])
