#!/usr/bin/env python3
"""Writes the palm/cloth/hold evemu fixtures (run from this folder; the output is committed).

A hand-made protocol-B touchscreen like a 7" 800x480 panel: positions 5 units/mm
(160 x 96 mm), ABS_MT_TOUCH_MAJOR/MINOR 0..255 at 5 units/mm (so 150 units = 30 mm, the
palm limit), ABS_MT_TOOL_TYPE 0..2. Each recording ends with an ordinary gesture that must
still work after the rejected one.
"""

HEADER = """# EVEMU 1.3
# Written by palm-fixtures.py for KioskCards' palm-rejection tests (not a real device): a
# protocol-B touchscreen like a 7" 800x480 panel, 5 units/mm on every axis.
# {what}
N: KioskCards fixture protocol-B 800x480 with touch size and tool type
I: 0018 0000 0000 0000
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 04 00 00 00 00 00 00
B: 03 03 00 00 00 00 80 e3 02
A: 00 0 799 0 0 5
A: 01 0 479 0 0 5
A: 2f 0 9 0 0 0
A: 30 0 255 0 0 5
A: 31 0 255 0 0 5
A: 35 0 799 0 0 5
A: 36 0 479 0 0 5
A: 37 0 2 0 0 0
A: 39 0 65535 0 0 0
"""

NAMES = {0x2F: "ABS_MT_SLOT", 0x30: "ABS_MT_TOUCH_MAJOR", 0x31: "ABS_MT_TOUCH_MINOR",
         0x35: "ABS_MT_POSITION_X", 0x36: "ABS_MT_POSITION_Y", 0x37: "ABS_MT_TOOL_TYPE",
         0x39: "ABS_MT_TRACKING_ID", 0x00: "ABS_X", 0x01: "ABS_Y"}


class Recording:
    def __init__(self, what):
        self.lines = [HEADER.format(what=what).rstrip("\n")]
        self.t = 1.0
        self.slots = {}  # slot -> last values sent, like the kernel's duplicate filter
        self.slot = None
        self.touching = False
        self.tid = 100

    def comment(self, text):
        self.lines.append("# " + text)

    def ev(self, type_, code, value, name):
        self.lines.append(f"E: {self.t:.6f} {type_:04x} {code:04x} {value:04d}\t# {name} {value}")

    def abs(self, slot, code, value):
        sent = self.slots.setdefault(slot, {})
        if sent.get(code) == value:
            return
        if self.slot != slot:
            self.ev(3, 0x2F, slot, "ABS_MT_SLOT")
            self.slot = slot
        sent[code] = value
        self.ev(3, code, value, NAMES[code])

    def contact(self, slot, x, y, major=40, minor=30, tool=0):
        """Puts or moves a contact (lands it when the slot is free)."""
        sent = self.slots.setdefault(slot, {})
        if sent.get(0x39, -1) < 0:
            self.tid += 1
            self.abs(slot, 0x39, self.tid)
        self.abs(slot, 0x37, tool)
        self.abs(slot, 0x30, major)
        self.abs(slot, 0x31, minor)
        self.abs(slot, 0x35, x)
        self.abs(slot, 0x36, y)

    def lift(self, slot):
        self.abs(slot, 0x39, -1)

    def report(self, dt=0.010):
        down = any(s.get(0x39, -1) >= 0 for s in self.slots.values())
        if down != self.touching:
            self.ev(1, 0x14A, 1 if down else 0, "BTN_TOUCH")
            self.touching = down
        self.lines.append(f"E: {self.t:.6f} 0000 0000 0000\t# SYN_REPORT")
        self.t = round(self.t + dt, 6)

    def swipe_right(self):
        self.comment("an ordinary swipe right: one finger from x 300 to 700 in 100 ms")
        for x in range(300, 701, 40):
            self.contact(0, x, 240)
            self.report()
        self.lift(0)
        self.report()

    def pause(self, seconds):
        self.t = round(self.t + seconds, 6)

    def write(self, name):
        with open(name, "w") as f:
            f.write("\n".join(self.lines) + "\n")


def palm_tool_type():
    r = Recording("A finger drags right; the hand rolls onto it and the panel reports MT_TOOL_PALM.")
    r.comment("a fingertip lands and drags right past the slop")
    for x in range(300, 401, 20):
        r.contact(0, x, 240)
        r.report()
    r.comment("the same contact becomes a palm and keeps sweeping right, then lifts")
    for x in range(420, 741, 40):
        r.contact(0, x, 240, tool=2)
        r.report()
    r.lift(0)
    r.report()
    r.pause(0.5)
    r.swipe_right()
    r.write("palm-tool-type.evemu")


def large_contact():
    r = Recording("A fingertip drags right, then the contact grows to 40 x 28 mm (a hand laid flat).")
    r.comment("a fingertip (8 x 6 mm) lands and drags right past the slop")
    for x in range(300, 401, 20):
        r.contact(0, x, 240)
        r.report()
    r.comment("the contact grows past 30 mm (150 units) and keeps sweeping right, then lifts")
    for i, x in enumerate(range(420, 741, 40)):
        r.contact(0, x, 240, major=min(80 + 40 * i, 200), minor=min(60 + 20 * i, 140))
        r.report()
    r.lift(0)
    r.report()
    r.pause(0.5)
    r.swipe_right()
    r.write("large-contact.evemu")


def cloth_wipe():
    r = Recording("A cleaning cloth wiped right: eight contacts of 14 mm, landing two per frame.")
    xs = [200, 240, 280, 320, 200, 240, 280, 320]
    ys = [180, 180, 180, 180, 300, 300, 300, 300]
    r.comment("eight contacts land over four frames")
    for n in range(2, 9, 2):
        for s in range(n):
            r.contact(s, xs[s], ys[s], major=70, minor=50)
        r.report()
    r.comment("the cloth sweeps 400 units right together, then lifts")
    for dx in range(40, 401, 40):
        for s in range(8):
            r.contact(s, xs[s] + dx, ys[s], major=70, minor=50)
        r.report()
    for s in range(8):
        r.lift(s)
    r.report()
    r.pause(0.5)
    r.swipe_right()
    r.write("cloth-wipe.evemu")


def cloth_wipe_palm():
    r = Recording("The issue's cloth: eight 40 mm contacts the panel reports as MT_TOOL_PALM.")
    xs = [200, 240, 280, 320, 200, 240, 280, 320]
    ys = [180, 180, 180, 180, 300, 300, 300, 300]
    r.comment("eight palm contacts land in one frame, sweep 400 units right, then lift")
    for dx in range(0, 401, 40):
        for s in range(8):
            r.contact(s, xs[s] + dx, ys[s], major=200, minor=140, tool=2)
        r.report()
    for s in range(8):
        r.lift(s)
    r.report()
    r.pause(0.5)
    r.swipe_right()
    r.write("cloth-wipe-palm.evemu")


def still_hold():
    r = Recording("A finger held still for 2 s (jittering within 1 unit), then an ordinary tap.")
    r.comment("the finger lands and rests, reporting a jitter every 100 ms")
    for i in range(21):
        r.contact(0, 400 + (i % 2), 240)
        r.report(0.100)
    r.lift(0)
    r.report()
    r.pause(0.5)
    r.comment("an ordinary tap: 80 ms at the same place")
    for x in (400, 401, 401):
        r.contact(0, x, 240)
        r.report(0.040)
    r.lift(0)
    r.report()
    r.write("still-hold.evemu")


palm_tool_type()
large_contact()
cloth_wipe()
cloth_wipe_palm()
still_hold()
