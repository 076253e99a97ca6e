#!/usr/bin/env python3
"""Host side of the virtual kiosk: a small QMP client (standard library only).

Screendumps (PPM from QEMU, saved as PNG), pixel and region probes with tolerance, the
usb-tablet driven as a finger through input-send-event, and waiting for marker lines on the
serial console log. Usable as a command (one QMP connection per call) or as a module.

    qmp.py [--qmp SOCK] [--serial LOG] [--size WxH] COMMAND ...

SOCK defaults to $VM_QMP, LOG to $VM_SERIAL, the size to $VM_SIZE or 800x480 — the
variables e2e.sh sets for a scenario's host() checks. Commands (see `qmp.py COMMAND -h`):

    screendump OUT.png                 what is scanned out now
    pixel X Y                          prints #rrggbb at (X, Y)
    expect-color X Y '#RRGGBB' [TOL]   fails unless every channel is within TOL (default 16)
    region-avg X Y W H                 prints the average colour of the rectangle
    expect-region X Y W H '#RRGGBB' [TOL]
    expect-region-away X Y W H '#RRGGBB' [TOL]   fails unless a channel is more than TOL away
    tablet-move X Y | tablet-down X Y | tablet-up | tablet-tap X Y
    tablet-drag X0 Y0 X1 Y1 MS [--steps N]
    tablet-unplug | tablet-plug        the usb-tablet leaves / comes back (hot-unplug)
    wait-serial TEXT [--timeout S] [--count N]   (S: seconds without new serial output; cap 5×S)
    quit | hmp 'info ...' | raw COMMAND ['{"json": "args"}']
    to-png IN.ppm OUT.png

Probes take --image FILE (probe a saved PPM/PNG instead of a live screendump), --save FILE
(keep the screendump as PNG), --within S (retry with fresh screendumps until the check
passes or S seconds pass) and --rotation DEG (X, Y are logical coordinates of an app turned
DEG clockwise, mapped onto the scanout as the app's Rotation.toPhysical does). The tablet
commands take --rotation too. Exit status: 0 ok, 1 check failed, 2 usage or I/O error.
"""

import argparse
import json
import os
import re
import socket
import struct
import sys
import tempfile
import time
import zlib

# QEMU's absolute input axis range (INPUT_EVENT_ABS_MIN..MAX in ui/input.h).
ABS_MAX = 0x7FFF


class QMPError(Exception):
    """A QMP command failed or the monitor could not be reached."""


class QMP:
    """One QMP session over a unix socket (capabilities negotiated on connect)."""

    def __init__(self, path, connect_timeout=15.0):
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError as error:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise QMPError(f"cannot connect to QMP socket {path}: {error}") from error
                time.sleep(0.1)
        self.file = self.sock.makefile("rwb")
        greeting = self._read()
        if "QMP" not in greeting:
            raise QMPError(f"not a QMP greeting: {greeting}")
        self.command("qmp_capabilities")

    def _read(self):
        line = self.file.readline()
        if not line:
            raise QMPError("QMP connection closed (did the VM stop?)")
        return json.loads(line)

    def command(self, name, **arguments):
        """Runs one command and returns its "return" value; events are skipped."""
        message = {"execute": name}
        if arguments:
            message["arguments"] = arguments
        self.file.write(json.dumps(message).encode() + b"\n")
        self.file.flush()
        while True:
            reply = self._read()
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise QMPError(f"{name}: {reply['error'].get('desc', reply['error'])}")

    def close(self):
        self.file.close()
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def screendump(self):
        """The scanout now, as an Image."""
        with tempfile.TemporaryDirectory(prefix="kiosk-qmp-") as tmp:
            path = os.path.join(tmp, "screen.ppm")
            self.command("screendump", filename=path)
            return Image.read(path)

    def send_events(self, events):
        self.command("input-send-event", events=events)


class Image:
    """An RGB image, 8 bits per channel, rows top to bottom."""

    def __init__(self, width, height, rgb):
        if len(rgb) != width * height * 3:
            raise ValueError("pixel data does not match the size")
        self.width, self.height, self.rgb = width, height, bytes(rgb)

    @staticmethod
    def read(path):
        with open(path, "rb") as f:
            data = f.read()
        if data.startswith(b"P6"):
            return Image._parse_ppm(data, path)
        if data.startswith(b"\x89PNG\r\n\x1a\n"):
            return Image._parse_png(data, path)
        raise ValueError(f"{path}: neither a binary PPM (P6) nor a PNG")

    @staticmethod
    def _parse_ppm(data, path):
        fields, pos = [], 2
        while len(fields) < 3:
            while data[pos : pos + 1].isspace():
                pos += 1
            if data[pos : pos + 1] == b"#":
                pos = data.index(b"\n", pos) + 1
                continue
            start = pos
            while not data[pos : pos + 1].isspace():
                pos += 1
            fields.append(int(data[start:pos]))
        width, height, maxval = fields
        if maxval != 255:
            raise ValueError(f"{path}: PPM with maxval {maxval}, only 255 is supported")
        pos += 1  # the single whitespace byte before the raster
        return Image(width, height, data[pos : pos + width * height * 3])

    @staticmethod
    def _parse_png(data, path):
        pos, idat, header = 8, b"", None
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos : pos + 8])
            body = data[pos + 8 : pos + 8 + length]
            pos += 12 + length
            if kind == b"IHDR":
                header = struct.unpack(">IIBBBBB", body)
            elif kind == b"IDAT":
                idat += body
            elif kind == b"IEND":
                break
        if header is None:
            raise ValueError(f"{path}: PNG without IHDR")
        width, height, depth, colour, _, _, interlace = header
        if depth != 8 or colour not in (2, 6) or interlace != 0:
            raise ValueError(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs are supported")
        bpp = 3 if colour == 2 else 4
        raw = zlib.decompress(idat)
        stride = width * bpp
        out, previous = bytearray(), bytearray(stride)
        for y in range(height):
            kind = raw[y * (stride + 1)]
            line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
            _unfilter(kind, line, previous, bpp)
            out += line
            previous = line
        if bpp == 4:
            out = bytearray(b for i, b in enumerate(out) if i % 4 != 3)
        return Image(width, height, out)

    def write_png(self, path):
        """Writes the image as a PNG (filter 0 rows, zlib level 6)."""
        stride = self.width * 3
        raw = b"".join(
            b"\x00" + self.rgb[y * stride : (y + 1) * stride] for y in range(self.height)
        )

        def chunk(kind, body):
            crc = zlib.crc32(kind + body) & 0xFFFFFFFF
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        png = (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b"")
        )
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(png)
        os.replace(tmp, path)

    def pixel(self, x, y):
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"({x}, {y}) is outside the {self.width}x{self.height} scanout")
        i = (y * self.width + x) * 3
        return tuple(self.rgb[i : i + 3])

    def region_average(self, x, y, w, h):
        if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > self.width or y + h > self.height:
            raise ValueError(
                f"region {x},{y} {w}x{h} is not inside the {self.width}x{self.height} scanout"
            )
        sums = [0, 0, 0]
        for row in range(y, y + h):
            start = (row * self.width + x) * 3
            line = self.rgb[start : start + w * 3]
            for c in range(3):
                sums[c] += sum(line[c::3])
        n = w * h
        return tuple(round(s / n) for s in sums)


def _unfilter(kind, line, previous, bpp):
    """Undoes one PNG row filter in place (filters 0-4 of the PNG spec)."""
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        up_left = previous[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            pred = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
            line[i] = (line[i] + pred) & 0xFF


def parse_color(text):
    value = text.strip().lstrip("#")
    if len(value) != 6:
        raise ValueError(f"colour '{text}' is not #RRGGBB")
    return tuple(int(value[i : i + 2], 16) for i in (0, 2, 4))


def hex_color(rgb):
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def parse_size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
        return w, h
    except ValueError:
        raise ValueError(f"size '{text}' is not WIDTHxHEIGHT") from None


def to_physical(x, y, rotation, size):
    """Maps a logical point of an app turned `rotation` degrees clockwise onto the panel of
    physical `size` — the same formulas as Rotation.toPhysical in the app (continuous
    coordinates)."""
    width, height = size
    rotation %= 360
    if rotation == 0:
        return x, y
    if rotation == 90:
        return width - y, x
    if rotation == 180:
        return width - x, height - y
    if rotation == 270:
        return y, height - x
    raise ValueError(f"rotation {rotation} is not 0, 90, 180 or 270")


def pixel_to_physical(x, y, rotation, size):
    """The physical pixel showing logical pixel (x, y): maps the pixel's centre."""
    px, py = to_physical(x + 0.5, y + 0.5, rotation, size)
    return int(px), int(py)


def rect_to_physical(x, y, w, h, rotation, size):
    """The physical rectangle covering a logical one."""
    corners = [to_physical(cx, cy, rotation, size) for cx in (x, x + w) for cy in (y, y + h)]
    xs = [c[0] for c in corners]
    ys = [c[1] for c in corners]
    return int(min(xs)), int(min(ys)), int(max(xs) - min(xs)), int(max(ys) - min(ys))


def within(actual, expected, tolerance):
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected))


class GuestEnded(Exception):
    """The guest's scenario ended before the serial log said what a host check waited for."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def wait_serial(log, text, timeout=30.0, count=1):
    """Waits until `text` has appeared `count` times in the serial log; returns the line.

    `timeout` is a no-progress window, not a total: it restarts whenever the log grows (the
    guest printed something: a check, the app's log, the kernel), so a slow, loaded host
    that is still working does not fail. A hard cap of CAP_FACTOR × `timeout` (env
    KIOSK_E2E_CAP_FACTOR, default 5) ends a wait on a guest that talks but never says `text`.
    """
    factor = float(os.environ.get("KIOSK_E2E_CAP_FACTOR", "5"))
    start = time.monotonic()
    last_size, last_progress = -1, start
    while True:
        try:
            with open(log, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            data = b""
        # Whole lines only: the guest's last line may still be arriving (a mark read as
        # "… rotation=0 pan" lost the fields after it).
        whole = data[: data.rfind(b"\n") + 1].decode(errors="replace")
        lines = [ln for ln in whole.splitlines() if text in ln]
        if len(lines) >= count:
            return lines[count - 1]
        now = time.monotonic()
        if len(data) != last_size:
            last_size, last_progress = len(data), now
        said = f"'{text}' appeared {len(lines)} of {count} times in {log}"
        # The guest's scenario ended (guest/init.sh prints its status, then powers down):
        # nothing more will come, so say so now instead of waiting out the window.
        ended = re.search(rb"KIOSK-VM: exit (\d+)", data)
        if ended:
            raise GuestEnded(int(ended.group(1)), f"the guest ended (exit {int(ended.group(1))}) first: {said}")
        if now - last_progress > timeout:
            tail = [ln.strip() for ln in data.decode(errors="replace").splitlines() if ln.strip()]
            last = tail[-1][:120] if tail else "(nothing)"
            raise TimeoutError(
                f"no progress for {timeout:g} s after '{last}' while waiting for '{text}' ({said})"
            )
        if now - start > timeout * factor:
            raise TimeoutError(
                f"{said}: the hard cap of {timeout * factor:g} s ({factor:g} × {timeout:g} s) was reached"
                " although the guest kept writing"
            )
        time.sleep(0.05)


def tablet_position_events(x, y, size):
    """input-send-event events placing the usb-tablet at physical pixel (x, y)."""
    width, height = size
    vx = round(min(max(x, 0), width - 1) * ABS_MAX / max(width - 1, 1))
    vy = round(min(max(y, 0), height - 1) * ABS_MAX / max(height - 1, 1))
    return [
        {"type": "abs", "data": {"axis": "x", "value": vx}},
        {"type": "abs", "data": {"axis": "y", "value": vy}},
    ]


def tablet_button_event(down):
    return {"type": "btn", "data": {"down": down, "button": "left"}}


def tablet_drag(qmp, start, end, duration_ms, size, steps=None, rotation=0):
    """Presses at `start`, moves in a straight line to `end` over `duration_ms`, releases.
    Points are logical (turned by `rotation`); one move event per step (default one per
    ~16 ms)."""
    steps = steps or max(2, duration_ms // 16)

    def at(t):
        x = start[0] + (end[0] - start[0]) * t
        y = start[1] + (end[1] - start[1]) * t
        return to_physical(x, y, rotation, size)

    qmp.send_events(tablet_position_events(*at(0.0), size) + [tablet_button_event(True)])
    began = time.monotonic()
    for i in range(1, steps + 1):
        target = began + duration_ms / 1000.0 * i / steps
        delay = target - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        qmp.send_events(tablet_position_events(*at(i / steps), size))
    qmp.send_events([tablet_button_event(False)])


# --- command line ---------------------------------------------------------------------------


def _probe_loop(args, check):
    """Runs `check(image)` -> (ok, message) on a screendump (or --image), retrying with
    fresh screendumps for --within seconds. Prints the last message; returns 0 or 1."""
    deadline = time.monotonic() + (args.within or 0)
    qmp = None if args.image else QMP(args.qmp)
    try:
        while True:
            image = Image.read(args.image) if args.image else qmp.screendump()
            ok, message = check(image)
            if ok or args.image or time.monotonic() >= deadline:
                break
            time.sleep(0.2)
    finally:
        if qmp:
            qmp.close()
    if args.save:
        image.write_png(args.save)
    print(("ok   " if ok else "FAIL ") + message)
    return 0 if ok else 1


def _cmd_screendump(args):
    with QMP(args.qmp) as qmp:
        image = qmp.screendump()
    image.write_png(args.out)
    print(f"{args.out} {image.width}x{image.height}")
    return 0


def _physical_point(args, x, y, image):
    return pixel_to_physical(x, y, args.rotation, (image.width, image.height))


def _cmd_pixel(args):
    def check(image):
        px, py = _physical_point(args, args.x, args.y, image)
        return True, hex_color(image.pixel(px, py))

    return _probe_once(args, check)


def _probe_once(args, check):
    """Prints what `check(image)` reports about one screendump (or --image)."""
    if args.image:
        image = Image.read(args.image)
    else:
        with QMP(args.qmp) as qmp:
            image = qmp.screendump()
    if args.save:
        image.write_png(args.save)
    print(check(image)[1])
    return 0


def _cmd_expect_color(args):
    expected = parse_color(args.color)

    def check(image):
        px, py = _physical_point(args, args.x, args.y, image)
        actual = image.pixel(px, py)
        where = f"({args.x},{args.y})" + (f" -> ({px},{py})" if args.rotation else "")
        return within(actual, expected, args.tolerance), (
            f"pixel {where} is {hex_color(actual)}, expected {hex_color(expected)} ±{args.tolerance}"
        )

    return _probe_loop(args, check)


def _cmd_region_avg(args):
    def check(image):
        rect = rect_to_physical(
            args.x, args.y, args.w, args.h, args.rotation, (image.width, image.height)
        )
        return True, hex_color(image.region_average(*rect))

    return _probe_once(args, check)


def _expect_region(args, away):
    """The rectangle's average colour within TOL of COLOR, or (away) more than TOL from it."""
    color = parse_color(args.color)

    def check(image):
        rect = rect_to_physical(
            args.x, args.y, args.w, args.h, args.rotation, (image.width, image.height)
        )
        actual = image.region_average(*rect)
        if away:
            wanted = f"a channel more than {args.tolerance} away from {hex_color(color)}"
        else:
            wanted = f"{hex_color(color)} ±{args.tolerance}"
        return within(actual, color, args.tolerance) != away, (
            f"region {args.x},{args.y} {args.w}x{args.h} averages {hex_color(actual)}, "
            f"expected {wanted}"
        )

    return _probe_loop(args, check)


def _cmd_expect_region(args):
    return _expect_region(args, away=False)


def _cmd_expect_region_away(args):
    return _expect_region(args, away=True)


def _tablet_point(args, x, y):
    return to_physical(x, y, args.rotation, parse_size(args.size))


def _cmd_tablet(args):
    size = parse_size(args.size)
    with QMP(args.qmp) as qmp:
        if args.command == "tablet-move":
            qmp.send_events(tablet_position_events(*_tablet_point(args, args.x, args.y), size))
        elif args.command == "tablet-down":
            qmp.send_events(
                tablet_position_events(*_tablet_point(args, args.x, args.y), size)
                + [tablet_button_event(True)]
            )
        elif args.command == "tablet-up":
            qmp.send_events([tablet_button_event(False)])
        elif args.command == "tablet-tap":
            qmp.send_events(
                tablet_position_events(*_tablet_point(args, args.x, args.y), size)
                + [tablet_button_event(True)]
            )
            time.sleep(args.hold_ms / 1000.0)
            qmp.send_events([tablet_button_event(False)])
        elif args.command == "tablet-unplug":
            qmp.command("device_del", id="tablet")
        elif args.command == "tablet-plug":
            qmp.command("device_add", driver="usb-tablet", bus="xhci.0", id="tablet")
        elif args.command == "tablet-drag":
            tablet_drag(
                qmp,
                (args.x0, args.y0),
                (args.x1, args.y1),
                args.ms,
                size,
                steps=args.steps,
                rotation=args.rotation,
            )
    return 0


def _cmd_wait_serial(args):
    if not args.serial:
        raise ValueError("no serial log: pass --serial or set VM_SERIAL")
    try:
        line = wait_serial(args.serial, args.text, args.timeout, args.count)
    except GuestEnded as error:
        # A skipped scenario (exit 77) skips its host checks too; any other end fails them.
        print(f"{'skip' if error.status == 77 else 'FAIL'}: {error}")
        return 77 if error.status == 77 else 1
    except TimeoutError as error:
        print(f"FAIL {error}")
        return 1
    print(line)
    return 0


def _cmd_quit(args):
    try:
        with QMP(args.qmp, connect_timeout=1) as qmp:
            qmp.command("quit")
    except QMPError:
        pass  # already gone
    return 0


def _cmd_hmp(args):
    with QMP(args.qmp) as qmp:
        print(qmp.command("human-monitor-command", **{"command-line": args.line}), end="")
    return 0


def _cmd_raw(args):
    with QMP(args.qmp) as qmp:
        reply = qmp.command(args.name, **(json.loads(args.arguments) if args.arguments else {}))
    print(json.dumps(reply, indent=2))
    return 0


def _cmd_to_png(args):
    Image.read(args.input).write_png(args.output)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="qmp.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--qmp", default=os.environ.get("VM_QMP"), help="QMP unix socket")
    parser.add_argument("--serial", default=os.environ.get("VM_SERIAL"), help="serial log")
    parser.add_argument(
        "--size", default=os.environ.get("VM_SIZE", "800x480"), help="scanout WxH (tablet)"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def probe(name, help_text):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--image", help="probe this PPM/PNG instead of a live screendump")
        p.add_argument("--save", help="also save the screendump probed as this PNG")
        p.add_argument("--within", type=float, default=0, help="retry for up to S seconds")
        p.add_argument("--rotation", type=int, default=0, help="X, Y are logical (degrees)")
        return p

    p = sub.add_parser("screendump", help="save the scanout as PNG")
    p.add_argument("out")
    p.set_defaults(run=_cmd_screendump)

    p = probe("pixel", "print the colour at X Y")
    p.add_argument("x", type=int)
    p.add_argument("y", type=int)
    p.set_defaults(run=_cmd_pixel)

    p = probe("expect-color", "check the colour at X Y")
    p.add_argument("x", type=int)
    p.add_argument("y", type=int)
    p.add_argument("color")
    p.add_argument("tolerance", type=int, nargs="?", default=16)
    p.set_defaults(run=_cmd_expect_color)

    p = probe("region-avg", "print the average colour of a rectangle")
    for name in ("x", "y", "w", "h"):
        p.add_argument(name, type=int)
    p.set_defaults(run=_cmd_region_avg)

    for name, help_text, run in (
        ("expect-region", "check the average colour of a rectangle", _cmd_expect_region),
        ("expect-region-away", "check a rectangle's average colour has left COLOR", _cmd_expect_region_away),
    ):
        p = probe(name, help_text)
        for arg in ("x", "y", "w", "h"):
            p.add_argument(arg, type=int)
        p.add_argument("color")
        p.add_argument("tolerance", type=int, nargs="?", default=16)
        p.set_defaults(run=run)

    for name in ("tablet-move", "tablet-down", "tablet-tap"):
        p = sub.add_parser(name, help=f"usb-tablet: {name[7:]} at X Y")
        p.add_argument("x", type=float)
        p.add_argument("y", type=float)
        p.add_argument("--rotation", type=int, default=0)
        p.add_argument("--hold-ms", type=int, default=80, help="tap: time held down")
        p.set_defaults(run=_cmd_tablet)
    p = sub.add_parser("tablet-up", help="usb-tablet: release the button")
    p.set_defaults(run=_cmd_tablet, rotation=0)
    p = sub.add_parser("tablet-unplug", help="usb-tablet: unplug it (device_del; run-vm --tablet)")
    p.set_defaults(run=_cmd_tablet, rotation=0)
    p = sub.add_parser("tablet-plug", help="usb-tablet: plug it back in (device_add)")
    p.set_defaults(run=_cmd_tablet, rotation=0)
    p = sub.add_parser("tablet-drag", help="usb-tablet: press, move over MS, release")
    for name in ("x0", "y0", "x1", "y1"):
        p.add_argument(name, type=float)
    p.add_argument("ms", type=int)
    p.add_argument("--steps", type=int)
    p.add_argument("--rotation", type=int, default=0)
    p.set_defaults(run=_cmd_tablet)

    p = sub.add_parser("wait-serial", help="wait for TEXT on the serial log")
    p.add_argument("text")
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--count", type=int, default=1, help="wait for the N-th occurrence")
    p.set_defaults(run=_cmd_wait_serial)

    p = sub.add_parser("quit", help="stop the VM now")
    p.set_defaults(run=_cmd_quit)
    p = sub.add_parser("hmp", help="a human monitor command, e.g. 'info mice'")
    p.add_argument("line")
    p.set_defaults(run=_cmd_hmp)
    p = sub.add_parser("raw", help="any QMP command with JSON arguments")
    p.add_argument("name")
    p.add_argument("arguments", nargs="?")
    p.set_defaults(run=_cmd_raw)
    p = sub.add_parser("to-png", help="convert a PPM (or PNG) to PNG")
    p.add_argument("input")
    p.add_argument("output")
    p.set_defaults(run=_cmd_to_png)

    args = parser.parse_args(argv)
    needs_qmp = args.command not in ("wait-serial", "to-png") and not getattr(args, "image", None)
    if needs_qmp and not args.qmp:
        parser.error("no QMP socket: pass --qmp or set VM_QMP")
    try:
        return args.run(args)
    except (QMPError, ValueError, OSError) as error:
        print(f"qmp.py {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
