#!/usr/bin/env python3
"""Writes deploy/kioskcards.order, the linker's symbol order for the release binary: the
functions of the executable that the bench's start-up probe runs (start-up, loading a deck,
the first frame, a drag) at the smallest and the largest panel, the busiest first, recorded
with valgrind's callgrind from a run of BINARY.

scripts/release-build.sh gives the file to lld (--symbol-ordering-file) with every function in
a section of its own, so the code a kiosk runs lies together and fewer pages of the executable
are read in. The order only moves code: a name the binary no longer has is skipped, a new
function not in the list goes after the listed ones, so a stale file costs locality, never
correctness. Regenerate it after changes to the drawing or start-up path:

    scripts/release-build.sh && scripts/exe-order.py .build/release/KioskCards

Usage: scripts/exe-order.py BINARY [--out FILE] [--sizes 800x480,1920x1080]
       scripts/exe-order.py BINARY --check [--out FILE]   (the list against BINARY's functions)
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMED = re.compile(r"^(c?ob|c?fn|c?fi|c?fe|fl|fi|fe)=\((\d+)\)(?: (.*))?$")


def functions(profile, binary):
    """Self instructions of each function of `binary` in a callgrind profile recorded with
    --dump-instr=yes (name compression resolved, recursion suffixes dropped), and the distinct
    4 kB pages of `binary` whose instructions ran."""
    names = {"ob": {}, "fn": {}}
    cost = collections.Counter()
    pages = set()
    obj = fn = None
    address = 0
    positions = 1  # "positions: instr line": the cost follows the positions
    after_call = False
    target = os.path.realpath(binary)
    with open(profile) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("positions:"):
                positions = len(line.split()) - 1
                continue
            m = NAMED.match(line)
            if m:
                key, ident, name = m.group(1), m.group(2), m.group(3)
                table = names.get(key.lstrip("c"))
                if table is not None and name is not None:
                    table[ident] = name
                if key == "ob":
                    obj = names["ob"].get(ident)
                elif key == "fn":
                    fn = names["fn"].get(ident)
                    fn = fn and re.sub(r"'\d+$", "", fn)
                continue
            if line.startswith("calls="):
                after_call = True
                continue
            if line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                position = parts[0]
                if position.startswith("0x"):
                    address = int(position, 16)
                elif position[0] in "+-":
                    address += int(position)
                elif position != "*":
                    address = int(position)
                mine = obj and os.path.realpath(obj) == target
                if mine:
                    pages.add(address >> 12)
                if after_call:  # the inclusive cost of a call, not the caller's own
                    after_call = False
                    continue
                if mine and fn and len(parts) > positions:
                    cost[fn] += int(parts[positions])
    return cost, pages


def check(binary, order, most_missing=0.10):
    """How many functions the order lists that `binary` no longer has. A list written before a
    change of the drawing or start-up path names functions since renamed or gone; past
    `most_missing` of them the check fails and says how to regenerate it."""
    names = [line.strip() for line in open(order) if line.strip() and not line.startswith("#")]
    run = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"exe-order: cannot list the functions of {binary}: {run.stderr.strip()}")
    defined = {line.split()[-1] for line in run.stdout.splitlines() if line.split()}
    missing = [n for n in names if n not in defined and not n.startswith("(")]
    share = len(missing) / max(1, len(names))
    print(f"exe-order: {len(missing)} of the {len(names)} functions {os.path.relpath(order, ROOT)} lists "
          f"are not in {binary} ({share * 100:.1f} %)")
    if share > most_missing:
        sys.exit(f"exe-order: the order is stale (over {most_missing * 100:.0f} % gone): regenerate it with "
                 f"scripts/exe-order.py {binary} and commit deploy/kioskcards.order")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--out", default=os.path.join(ROOT, "deploy", "kioskcards.order"))
    parser.add_argument("--sizes", default="800x480,1920x1080")
    parser.add_argument("--check", action="store_true", help="only check the list against BINARY")
    args = parser.parse_args()
    if args.check:
        check(args.binary, args.out)
        return
    if subprocess.run(["which", "valgrind"], capture_output=True).returncode != 0:
        sys.exit("exe-order: needs valgrind (apt-get install valgrind)")
    total = collections.Counter()
    pages = set()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            profile = os.path.join(tmp, f"callgrind.{size}")
            run = subprocess.run(
                ["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=yes",
                 f"--callgrind-out-file={profile}",
                 args.binary, "bench", "--probe", "--frames", "8", "--size", size],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if run.returncode != 0:
                sys.exit(f"exe-order: the probe at {size} failed under valgrind:\n{run.stderr[-2000:]}")
            cost, ran = functions(profile, args.binary)
            total.update(cost)
            pages |= ran
    names = [n for n, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])) if not n.startswith("0x")]
    if not names:
        sys.exit(f"exe-order: no function of {args.binary} in the profile (was it built with symbols?)")
    with open(args.out + ".tmp", "w") as f:
        f.write("# The release binary's function order (lld --symbol-ordering-file): the functions the\n")
        f.write("# bench's start-up probe runs, busiest first. Written by scripts/exe-order.py; do not edit.\n")
        f.writelines(n + "\n" for n in names)
    os.replace(args.out + ".tmp", args.out)
    print(f"exe-order: {len(names)} functions → {os.path.relpath(args.out, ROOT)}")
    # What a better layout can save at most: the code the probe really runs, in 4 kB pages (the
    # probe's libraries' line prints what is resident: fault-around maps up to 64 kB per fault).
    print(f"exe-order: the probe ran code on {len(pages)} distinct 4 kB pages ({len(pages) * 4 / 1024:.2f} MB) of {args.binary}")


if __name__ == "__main__":
    main()
