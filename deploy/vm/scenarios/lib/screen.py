#!/usr/bin/env python3
"""Host side of the app scenarios: the scanout compared with the app's own headless renderer.

    screen.py expect-like EXPECTED.png [--cell N] [--tolerance T] [--exclude X Y W H]...
                          [--rotation DEG] [--within S] [--save PNG] [--image FILE]
    screen.py differ A.png B.png [--cell N] [--min D] [--exclude X Y W H]... [--rotation DEG]
    screen.py expect-rgb565 EXPECTED.png [--min-same F] [--exclude X Y W H]... [--rotation DEG]
                          [--within S] [--save PNG] [--image FILE]

expect-like cuts the screen into N x N pixel cells (default 16) and passes when the average
colour of every cell of the scanout is within T (default 10) per channel of the same cell of
EXPECTED (a `KioskCards render` PNG of the panel as mounted). Averages over cells forgive
anti-aliasing and sub-pixel text differences but not a card out of place: a card moved by a
few pixels changes the cells along its edges by far more than T. --exclude skips cells that
touch a rectangle given in logical pixels of an app turned --rotation degrees (e.g. the
"Tippen zum Starten" line the headless renderer does not draw). --within retries with fresh
screendumps while an animation settles.

expect-rgb565 passes when every pixel of the scanout is an RGB565 value widened to 8 bits (each
channel's low bits zero, or its top bits repeated: QEMU widens either way, by its path) and at
least F (default 0.9) of the pixels have the same top 5/6/5 bits as EXPECTED (`KioskCards render
--pixel-format rgb565`): the dithering too, which cell averages cannot see.

differ checks that two expected images differ somewhere by more than D (default 40), so a
comparison against either can tell them apart.

Exit status: 0 ok, 1 check failed, 2 usage or I/O error (like qmp.py, whose QMP client and
image reader this uses).
"""

import argparse
import os
import sys

sys.path.insert(0, os.environ.get("VM_DIR") or os.path.join(os.path.dirname(__file__), "..", ".."))
import qmp  # noqa: E402  (deploy/vm/qmp.py)


def cell_averages(image, cell, skip):
    """{(x, y, w, h): (r, g, b)} for every cell not in `skip`."""
    out = {}
    for y in range(0, image.height, cell):
        for x in range(0, image.width, cell):
            rect = (x, y, min(cell, image.width - x), min(cell, image.height - y))
            if not skip(rect):
                out[rect] = image.region_average(*rect)
    return out


def excluder(rects, rotation, size):
    physical = [qmp.rect_to_physical(*r, rotation, size) for r in rects]

    def skip(cell):
        x, y, w, h = cell
        return any(x < ex + ew and ex < x + w and y < ey + eh and ey < y + h for ex, ey, ew, eh in physical)

    return skip


def worst(expected, actual):
    """The cell with the largest channel difference: (difference, rect, expected, actual)."""
    result = (-1, None, None, None)
    for rect, e in expected.items():
        a = actual[rect]
        d = max(abs(p - q) for p, q in zip(e, a))
        if d > result[0]:
            result = (d, rect, e, a)
    return result


def describe(result):
    d, (x, y, w, h), e, a = result
    return f"cell {x},{y} {w}x{h}: {qmp.hex_color(a)} vs expected {qmp.hex_color(e)} (off by {d})"


def cmd_expect_like(args):
    expected_image = qmp.Image.read(args.expected)
    size = (expected_image.width, expected_image.height)
    skip = excluder(args.exclude, args.rotation, size)
    expected = cell_averages(expected_image, args.cell, skip)

    def check(image):
        if (image.width, image.height) != size:
            return False, f"the scanout is {image.width}x{image.height}, expected {size[0]}x{size[1]}"
        actual = cell_averages(image, args.cell, skip)
        result = worst(expected, actual)
        bad = sum(1 for r, e in expected.items() if max(map(lambda p, q: abs(p - q), e, actual[r])) > args.tolerance)
        message = (
            f"like {os.path.basename(args.expected)} within ±{args.tolerance} over {len(expected)} cells "
            f"of {args.cell}px" + (f" ({bad} off)" if bad else "") + f"; worst {describe(result)}"
        )
        return result[0] <= args.tolerance, message

    # The same retry loop as qmp.py's probes: fresh screendumps until it matches or --within passes.
    return qmp._probe_loop(args, check)


def widened_565(rgb):
    """Whether an (r, g, b) pixel is an RGB565 value widened: low bits zero or repeated."""
    for c, bits in zip(rgb, (5, 6, 5)):
        top, low = c >> (8 - bits), c & ((1 << (8 - bits)) - 1)
        if low not in (0, top >> (2 * bits - 8)):
            return False
    return True


def top_565(rgb):
    r, g, b = rgb
    return (r >> 3, g >> 2, b >> 3)


def cmd_expect_rgb565(args):
    expected = qmp.Image.read(args.expected)
    size = (expected.width, expected.height)
    skip = excluder(args.exclude, args.rotation, size)

    def check(image):
        if (image.width, image.height) != size:
            return False, f"the scanout is {image.width}x{image.height}, expected {size[0]}x{size[1]}"
        total = not565 = same = 0
        for y in range(image.height):
            for x in range(image.width):
                if skip((x, y, 1, 1)):
                    continue
                total += 1
                a = image.pixel(x, y)
                if not widened_565(a):
                    not565 += 1
                if top_565(a) == top_565(expected.pixel(x, y)):
                    same += 1
        fraction = same / max(1, total)
        message = (
            f"{total - not565} of {total} pixels are RGB565 values; {fraction:.4f} have the 5/6/5 bits of "
            f"{os.path.basename(args.expected)} (need {args.min_same})"
        )
        return not565 == 0 and fraction >= args.min_same, message

    return qmp._probe_loop(args, check)


def cmd_differ(args):
    a, b = qmp.Image.read(args.a), qmp.Image.read(args.b)
    if (a.width, a.height) != (b.width, b.height):
        print(f"ok   {args.a} and {args.b} differ in size")
        return 0
    skip = excluder(args.exclude, args.rotation, (a.width, a.height))
    result = worst(cell_averages(a, args.cell, skip), cell_averages(b, args.cell, skip))
    ok = result[0] > args.min
    print(
        ("ok   " if ok else "FAIL ")
        + f"{os.path.basename(args.a)} and {os.path.basename(args.b)} differ by up to {result[0]} "
        + f"(need > {args.min}); most at {describe(result)}"
    )
    return 0 if ok else 1


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="screen.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--qmp", default=os.environ.get("VM_QMP"), help="QMP unix socket")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p):
        p.add_argument("--cell", type=int, default=16, help="cell size in pixels (default 16)")
        p.add_argument(
            "--exclude", nargs=4, type=int, action="append", default=[], metavar=("X", "Y", "W", "H"),
            help="skip cells touching this logical rectangle (repeatable)",
        )
        p.add_argument("--rotation", type=int, default=0, help="rotation of --exclude's coordinates")

    p = sub.add_parser("expect-like", help="the scanout looks like EXPECTED.png, cell by cell")
    p.add_argument("expected")
    common(p)
    p.add_argument("--tolerance", type=int, default=10, help="per channel, per cell (default 10)")
    p.add_argument("--within", type=float, default=0, help="retry for S seconds")
    p.add_argument("--save", help="keep the (last) screendump as PNG")
    p.add_argument("--image", help="compare this saved image instead of a live screendump")
    p.set_defaults(run=cmd_expect_like)

    p = sub.add_parser("expect-rgb565", help="the scanout is RGB565 and has EXPECTED.png's 5/6/5 bits")
    p.add_argument("expected")
    common(p)
    p.add_argument("--min-same", type=float, default=0.9, help="fraction of pixels with the same bits")
    p.add_argument("--within", type=float, default=0, help="retry for S seconds")
    p.add_argument("--save", help="keep the (last) screendump as PNG")
    p.add_argument("--image", help="check this saved image instead of a live screendump")
    p.set_defaults(run=cmd_expect_rgb565)

    p = sub.add_parser("differ", help="two expected images differ (so a check can tell them apart)")
    p.add_argument("a")
    p.add_argument("b")
    common(p)
    p.add_argument("--min", type=int, default=40, help="the largest cell difference must exceed this")
    p.set_defaults(run=cmd_differ)

    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (OSError, ValueError, qmp.QMPError) as error:
        print(f"screen.py: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
