#!/usr/bin/python3
"""Writes the small images tests/test_codec.c and tests/cli/test_cli.sh
decode. Run once by hand (needs Debian's python3-pil); the files are
committed, so the tests need neither PIL nor this script.

    /usr/bin/python3 tests/data/images/make_images.py

pattern.*: a 7x5 image whose pixel (x, y) is R = 37x mod 256,
G = 53y mod 256, B = (11xy + 7) mod 256 -- test_codec.c computes the same
and compares exactly for lossless formats, within a tolerance for lossy ones.
digit_00_label_5.{png,jpg}: examples/digits/samples/digit_00_label_5.pb as an
8x8 gray image (value v in 0..16 becomes round(255 v / 16)).
"""
import os
import struct
import zlib

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 7, 5


def rgb(x, y):
    return (37 * x % 256, 53 * y % 256, (11 * x * y + 7) % 256)


def out(name):
    return os.path.join(HERE, name)


def pattern():
    im = Image.new("RGB", (W, H))
    im.putdata([rgb(x, y) for y in range(H) for x in range(W)])
    im.save(out("pattern.png"))
    write_interlaced_png(out("pattern_interlaced.png"))
    im.convert("RGBA").save(out("pattern_rgba.png"))
    im.save(out("pattern.bmp"))
    im.save(out("pattern.ppm"))
    im.save(out("pattern.tif"))
    im.save(out("pattern.webp"), lossless=True)
    im.save(out("pattern_lossy.webp"), quality=95)
    im.save(out("pattern.jpg"), quality=95, subsampling=0)
    im.save(out("pattern_progressive.jpg"), quality=95, subsampling=0, progressive=True)
    im.save(out("pattern.jp2"), irreversible=False)
    im.save(out("pattern.j2k"), irreversible=False)
    # The gray channel of the pattern (its R) as 8-bit gray and 16-bit gray
    # (v * 257: the high byte is v again).
    gray = Image.new("L", (W, H))
    gray.putdata([rgb(x, y)[0] for y in range(H) for x in range(W)])
    gray.save(out("pattern_gray.png"))
    gray.save(out("pattern_gray.pgm"))
    gray.save(out("pattern_gray.jpg"), quality=95)
    g16 = Image.new("I;16", (W, H))
    g16.putdata([rgb(x, y)[0] * 257 for y in range(H) for x in range(W)])
    g16.save(out("pattern_gray16.png"))
    # A palette image whose colours are the pattern's (35 entries).
    pal = Image.new("P", (W, H))
    colours = [rgb(x, y) for y in range(H) for x in range(W)]
    pal.putpalette([c for col in colours for c in col])
    pal.putdata(list(range(W * H)))
    pal.save(out("pattern_palette.png"))


def write_interlaced_png(path):
    """The pattern as an Adam7-interlaced RGB PNG (PIL cannot write one)."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
              (1, 0, 2, 2), (0, 1, 1, 2)]  # x0, y0, dx, dy
    raw = b""
    for x0, y0, dx, dy in passes:
        xs = range(x0, W, dx)
        for y in range(y0, H, dy):
            if xs:
                raw += b"\0" + bytes(c for x in xs for c in rgb(x, y))  # filter None

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data)))

    ihdr = struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 1)  # 8-bit RGB, Adam7
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def read_tensor_floats(path):
    """The float data of a small TensorProto (raw_data, field 9)."""
    b = open(path, "rb").read()
    i = 0

    def varint():
        nonlocal i
        r = s = 0
        while True:
            c = b[i]
            i += 1
            r |= (c & 0x7F) << s
            s += 7
            if c < 0x80:
                return r

    while i < len(b):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            varint()
        elif wire == 2:
            n = varint()
            if field == 9:
                return struct.unpack("<%df" % (n // 4), b[i:i + n])
            i += n
        elif wire == 5:
            i += 4
        elif wire == 1:
            i += 8
    raise ValueError("no raw_data in " + path)


def digit():
    src = os.path.join(HERE, "../../../examples/digits/samples/digit_00_label_5.pb")
    values = read_tensor_floats(src)  # v / 16, 64 values
    im = Image.new("L", (8, 8))
    im.putdata([round(255 * v) for v in values])
    im.save(out("digit_00_label_5.png"))
    im.save(out("digit_00_label_5.jpg"), quality=100)


if __name__ == "__main__":
    pattern()
    digit()
