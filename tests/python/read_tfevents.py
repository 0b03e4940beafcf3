"""Independent reader for TensorBoard event files, for tests/base/tensorboard/TensorBoardWriterTest.cpp.

Parses the TFRecord framing and the Event/Summary protobuf wire format by hand (struct only: no
TensorFlow, TensorBoard or protobuf package), verifies both masked CRC-32Cs of every record with
its own CRC-32C, and prints one JSON object:

  {"records": N, "torn_tail": bool,
   "events": [{"wall_time": float, "step": int, "file_version": str or null,
               "values": [{"tag": str, "simple_value": float or null,
                           "simple_value_bits": uint32 or null,
                           "image": null or {"height", "width", "colorspace", "encoded_hex"}}]}]}

On a CRC mismatch or malformed data it prints {"error": msg, "offset": record_offset} and exits 2.
Usage: read_tfevents.py FILE
"""
import json
import struct
import sys


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc32c(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


class Malformed(Exception):
    pass


def _varint(buf, pos):
    result, shift = 0, 0
    while True:
        if pos >= len(buf):
            raise Malformed("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise Malformed("varint too long")


def fields(buf):
    """Yields (field_number, wire_type, value): int for varint, bytes for fixed/length-delimited."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        elif wire == 3:  # group: skip to the matching end group
            depth = 1
            while depth:
                k, pos = _varint(buf, pos)
                w = k & 7
                if w == 3:
                    depth += 1
                elif w == 4:
                    depth -= 1
                elif w == 0:
                    _, pos = _varint(buf, pos)
                elif w == 1:
                    pos += 8
                elif w == 2:
                    n, pos = _varint(buf, pos)
                    pos += n
                elif w == 5:
                    pos += 4
                else:
                    raise Malformed("bad wire type in group")
            value = None
        else:
            raise Malformed("bad wire type %d" % wire)
        if pos > len(buf):
            raise Malformed("field past end of message")
        yield field, wire, value


def int32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def int64(v):
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v & 0x8000000000000000 else v


def decode_image(buf):
    img = {"height": 0, "width": 0, "colorspace": 0, "encoded_hex": ""}
    for f, w, v in fields(buf):
        if f == 1 and w == 0:
            img["height"] = int32(v)
        elif f == 2 and w == 0:
            img["width"] = int32(v)
        elif f == 3 and w == 0:
            img["colorspace"] = int32(v)
        elif f == 4 and w == 2:
            img["encoded_hex"] = bytes(v).hex()
    return img


def decode_value(buf):
    val = {"tag": "", "simple_value": None, "simple_value_bits": None, "image": None}
    for f, w, v in fields(buf):
        if f == 1 and w == 2:
            val["tag"] = bytes(v).decode("utf-8")
        elif f == 2 and w == 5:
            (bits,) = struct.unpack("<I", v)
            (fv,) = struct.unpack("<f", v)
            val["simple_value_bits"] = bits
            val["simple_value"] = fv if fv == fv and abs(fv) != float("inf") else None
        elif f == 4 and w == 2:
            val["image"] = decode_image(v)
    return val


def decode_event(buf):
    ev = {"wall_time": 0.0, "step": 0, "file_version": None, "values": []}
    for f, w, v in fields(buf):
        if f == 1 and w == 1:
            (ev["wall_time"],) = struct.unpack("<d", v)
        elif f == 2 and w == 0:
            ev["step"] = int64(v)
        elif f == 3 and w == 2:
            ev["file_version"] = bytes(v).decode("utf-8")
        elif f == 5 and w == 2:
            for sf, sw, sv in fields(v):
                if sf == 1 and sw == 2:
                    ev["values"].append(decode_value(sv))
    return ev


def main(path):
    with open(path, "rb") as fh:
        data = fh.read()
    pos, events, torn = 0, [], False
    while pos < len(data):
        if pos + 12 > len(data):
            torn = True
            break
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if masked_crc32c(header) != length_crc:
            print(json.dumps({"error": "length CRC mismatch", "offset": pos}))
            return 2
        end = pos + 12 + length + 4
        if end > len(data):
            torn = True
            break
        payload = data[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack("<I", data[end - 4:end])
        if masked_crc32c(payload) != data_crc:
            print(json.dumps({"error": "data CRC mismatch", "offset": pos}))
            return 2
        try:
            events.append(decode_event(payload))
        except (Malformed, UnicodeDecodeError, struct.error) as e:
            print(json.dumps({"error": "malformed Event: %s" % e, "offset": pos}))
            return 2
        pos = end
    print(json.dumps({"records": len(events), "torn_tail": torn, "events": events}))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: read_tfevents.py FILE\n")
        sys.exit(64)
    sys.exit(main(sys.argv[1]))
