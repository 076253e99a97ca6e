#!/usr/bin/env python3
"""Compares PNG files pixel by pixel (stdlib only: 8-bit RGB/RGBA, non-interlaced, as cairo
writes them). Usage: scripts/png-diff.py A.png B.png [A2.png B2.png ...]
Prints, per pair: identical pixels, pixels differing, the largest channel difference and the
mean. Exit 0 when every pair is pixel-identical, 1 otherwise, 2 on a read error."""
import os
import struct
import sys
import zlib

# The row filters are undone by the virtual kiosk's own PNG reader (deploy/vm/qmp.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "vm"))
from qmp import _unfilter  # noqa: E402


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        _unfilter(f, line, prev, bpp)
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def compare(a, b):
    wa, ha, ba, ra = read_png(a)
    wb, hb, bb, rb = read_png(b)
    if (wa, ha) != (wb, hb):
        return f"{a} vs {b}: sizes differ ({wa}x{ha} vs {wb}x{hb})", False
    differ, worst, total = 0, 0, 0
    for y in range(ha):
        if ra[y] == rb[y] and ba == bb:
            continue
        for x in range(wa):
            pa = ra[y][x * ba:x * ba + 3]
            pb = rb[y][x * bb:x * bb + 3]
            if pa != pb:
                differ += 1
                d = [abs(p - q) for p, q in zip(pa, pb)]
                worst = max(worst, *d)
                total += sum(d)
    n = wa * ha
    mean = total / (n * 3)
    return (f"{a} vs {b}: {wa}x{ha}, {n - differ} identical, {differ} differ "
            f"({100 * differ / n:.2f} %), max channel difference {worst}, mean {mean:.3f}"), differ == 0


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    same = True
    for a, b in zip(args[::2], args[1::2]):
        try:
            line, ok = compare(a, b)
        except (OSError, ValueError, zlib.error) as e:
            print(f"png-diff: {e}", file=sys.stderr)
            sys.exit(2)
        print(line)
        same = same and ok
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
