#!/usr/bin/env python3
"""Re-runs the commands behind docs/PERFORMANCE.md's "Current figures" table and checks that
each figure is printed by them, in the shape the table shows.

For every row of the table a rule below names where its command prints the figure; the rule
reads the values from this run's output and the check compares their count and unit with the
row's "now" cell. A row without a rule fails ("add a rule or drop the figure"), so a figure no
command prints cannot enter the table. Figures that do not move with the host (the unit's
exposure level) must also be equal to the table's (the unit's exposure level; the card image cache's budget,
which is set by the panel's size alone).

The bench runs cheaply (`--frames 8`: the drags are short, so times and counts differ from
the table's, and only the shape is compared): once by time with every scene and the start-up
probe, once counting the flat and once the photo drag's instructions (valgrind). Counting a
whole visit's instructions under valgrind takes many minutes, and a comparison of two builds
needs both; such rows are listed as not re-run, with their command. Usage:

    scripts/docs-figures.py [--bin .build/release/KioskCards] [--saved DIR]

--saved DIR: read the runs' outputs from DIR/NAME.txt (NAME: time, flat, photo) instead of
running them, and write them there when they run (for working on this script).
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")
SIZES = ["800x480", "1280x800", "1920x1080"]
VISITS = ["stack-visit", "photo-visit", "list-visit"]


def table_rows(path):
    """The rows of the first table under '## Current figures': (figure, now, command)."""
    rows, inside = [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            inside = line.strip() == "## Current figures"
            continue
        if inside and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] in ("figure", "") or set(cells[0]) <= set("-"):
                continue
            rows.append((cells[0], cells[1], cells[-1]))
        elif inside and rows and not line.strip():
            break
    return rows


class Bench:
    """The bench's text output, parsed: its tables, goal lines, worst frames and memory parts."""

    def __init__(self, text):
        self.text = text
        self.rows = {}  # (scene, size, pipeline) -> dict of columns
        self.worst_instructions = {}  # (scene, size) -> the worst frame's instructions, M
        self.probes = {}  # "1920x1080" -> {"first": [ms, process, thread], "peak": MB, "parts": {what: MB}}
        self.scanout_bytes = {}  # (size, format) -> (whole frame, drag frame) MB
        self.visits = {}  # (scene, size) -> a whole visit's peak RSS, MB (the visit memory lines)
        self.visit_budgets = {}  # (scene, size) -> the card image cache's budget in that visit, MB
        scene = size = None
        worst_scene_size = None
        probe = None
        for line in text.splitlines():
            m = re.match(r"^  start → first composed frame, (\d+)×(\d+),\s+50 cards:(.*)$", line)
            if m:
                probe = self.probes.setdefault(f"{m.group(1)}x{m.group(2)}", {"parts": {}})
                # The medians (from the spawn, process CPU, drawing thread), not the spread after them.
                probe["first"] = NUMBER.findall(m.group(3))[:3]
                continue
            if probe is not None:
                m = re.match(r"^  peak RSS, same:\s+([0-9.]+) MB", line)
                if m:
                    probe["peak"] = m.group(1)
                    continue
                m = re.match(r"^    \s*([0-9.]+) MB  (.*)$", line)
                if m:
                    probe["parts"][m.group(2)] = m.group(1)
                    continue
                probe = None
            m = re.match(r"^    ([a-z]+-visit) (\d+)×(\d+)\s+([0-9.]+) MB;", line)
            if m:
                self.visits[(m.group(1), f"{m.group(2)}x{m.group(3)}")] = m.group(4)
                b = re.search(r"\(budget ([0-9.]+) MB\)", line)
                if b:
                    self.visit_budgets[(m.group(1), f"{m.group(2)}x{m.group(3)}")] = b.group(1)
                continue
            m = re.match(r"^  (\d+x\d+) ([a-z0-9]+): ([0-9.]+) MB(?:; ([0-9.]+) MB)?$", line)
            if m:
                self.scanout_bytes[(m.group(1), m.group(2))] = (m.group(3), m.group(4))
                continue
            m = re.match(r"^([a-z][a-z-]+): ", line)
            if m and not line.startswith("bench:"):
                scene = m.group(1)
                continue
            m = re.match(r"^(\d+x\d+)?\s+([a-z][a-z0-9-]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\d+)\s+([0-9.]+)(.*)$", line)
            if m and scene:
                size = m.group(1) or size
                rest = m.group(9)
                instr = re.search(r"([0-9.]+) M\s*$", rest)
                self.rows[(scene, size, m.group(2))] = {
                    "median": m.group(3), "p99": m.group(5), "ratio": m.group(8),
                    "instructions": instr.group(1) if instr else None,
                }
                continue
            m = re.match(r"^  (\d+x\d+): the \d+ worst of \d+ frames by instructions", line)
            if m:
                worst_scene_size = (scene, m.group(1))
                continue
            m = re.match(r"^    frame \d+: ([0-9.]+) M", line)
            if m and worst_scene_size and worst_scene_size not in self.worst_instructions:
                self.worst_instructions[worst_scene_size] = m.group(1)
                continue
            if not line.startswith("    "):
                worst_scene_size = None

    def column(self, scene, pipeline, key, sizes=SIZES):
        values = []
        for s in sizes:
            row = self.rows.get((scene, s, pipeline))
            values.append(row[key] if row and row[key] is not None else None)
        return values

    def goal(self, label):
        """The values of the goal line that starts with LABEL (after 'Goals, as measured')."""
        _, _, goals = self.text.partition("Goals, as measured in this run:")
        for line in goals.splitlines():
            if line.strip().startswith(label):
                return NUMBER.findall(line.split(":", 1)[1].split("), of which")[0])
        return [None]

    def probe(self, size, key):
        return self.probes.get(size, {}).get(key)

    def memory_parts(self, size, whats):
        """The probe's parts at SIZE, in the order of WHATS (each the start of a part's line)."""
        parts = self.probes.get(size, {}).get("parts", {})
        return [next((v for k, v in parts.items() if k.startswith(w)), None) for w in whats]

    def executable(self, size):
        """The executable's own pages at SIZE, from the libraries' part ("N MB the executable's own")."""
        part = next((k for k in self.probes.get(size, {}).get("parts", {}) if k.startswith(PARTS[0])), "")
        m = re.search(r"([0-9.]+) MB the executable's own", part)
        return m.group(1) if m else None

    def budget(self, size):
        part = next((k for k in self.probes.get(size, {}).get("parts", {}) if k.startswith("cached card images")), "")
        m = re.search(r"budget ([0-9.]+) MB\)", part)
        return m.group(1) if m else None

    def drag_bytes(self, fmt):
        return [self.scanout_bytes.get((s, fmt), (None, None))[1] for s in SIZES]


PARTS = ("the executable's and shared libraries' pages", "cached card images", "the band buffer",
         "the still layer", "blurred shadow masks", "font files", "the rest of the heap")


def exposure():
    out = subprocess.run(["bash", os.path.join(ROOT, "deploy/check.sh")], capture_output=True, text=True)
    m = re.search(r"^exposure ([0-9.]+)", out.stdout, re.M)
    return [m.group(1) if m else None]


# The cheap runs: name -> the bench's arguments.
RUNS = {
    "time": ["--cpu-time", "--worst", "3", "--frames", "8"],
    "flat": ["--cpu-time", "--instructions", "--scene", "stack-drag", "--frames", "8", "--no-probe"],
    "photo": ["--instructions", "--scene", "stack-drag-photo", "--frames", "8", "--no-probe"],
}
EXPENSIVE = "expensive"  # a row whose run is not repeated here: minutes under valgrind
TWO_BUILDS = "two builds"  # a row that compares two builds of the binary

# figure (the table's first cell) -> (the run, how its values are read, they must equal the table's)
RULES = {
    "drag frame, flat card, instructions per frame":
        ("flat", lambda b: b.column("stack-drag", "real", "instructions"), False),
    "drag frame, photo card, instructions per frame":
        ("photo", lambda b: b.column("stack-drag-photo", "real", "instructions"), False),
    "drag frame, flat card, median thread CPU time":
        ("time", lambda b: b.column("stack-drag", "real", "median"), False),
    "drag frame, p99 / median by instructions (by time)":
        ("flat", lambda b: b.goal("p99 / median, stack drag, by size"), False),
    "photo card × flat card, by time":
        ("time", lambda b: b.goal("the same with a photo card"), False),
    "1080p drag: cairo-redraw / cairo-cached against the real pipeline":
        ("time", lambda b: [b.column("stack-drag", p, "ratio", ["1920x1080"])[0] for p in ("cairo-redraw", "cairo-cached")], False),
    "1080p memcpy of a frame, hot / cold; real / cold":
        ("time", lambda b: [b.column("memcpy", p, "median", ["1920x1080"])[0] for p in ("memcpy-hot", "memcpy-cold")]
         + b.goal("real / cold memcpy floor"), False),
    "whole visit at 1080p, stack / photo / list: instructions per frame":
        (EXPENSIVE, lambda b: [b.column(v, "real", "instructions", ["1920x1080"])[0] for v in VISITS], False),
    "whole visit at 1080p, stack / photo / list: worst frame by instructions":
        (EXPENSIVE, lambda b: [b.worst_instructions.get((v, "1920x1080")) for v in VISITS], False),
    "whole visit at 1080p, stack / photo / list: worst frame by thread CPU time":
        ("time", lambda b: b.goal("worst frame of a whole visit"), False),
    "start → first composed frame, 1080p, 50 cards (CPU: process, drawing thread), medians of nine starts":
        ("time", lambda b: b.probe("1920x1080", "first") or [None], False),
    "peak RSS over a whole visit, stack / photo / list, 1920×1080, the shipped build":
        ("time", lambda b: [b.visits.get((v, "1920x1080")) for v in VISITS], False),
    "peak RSS over a whole visit, stack / photo / list, 800×480":
        ("time", lambda b: [b.visits.get((v, "800x480")) for v in VISITS], False),
    "peak RSS of the probe at 1920×1080 / 800×480, the shipped build":
        ("time", lambda b: [b.probe("1920x1080", "peak"), b.probe("800x480", "peak")], False),
    "of which libraries' pages / card images / the band buffer / still layer / shadow masks / fonts / rest of the heap, 1920×1080":
        ("time", lambda b: b.memory_parts("1920x1080", PARTS), False),
    "the same at 800×480":
        ("time", lambda b: b.memory_parts("800x480", PARTS), False),
    "of which the executable's own pages (code, read-only data, relocated data), 1920×1080 / 800×480":
        ("time", lambda b: [b.executable("1920x1080"), b.executable("800x480")], False),
    "probe at 800×480, Swift runtime linked dynamically / statically: RSS before drawing; peak RSS":
        (TWO_BUILDS, None, False),
    "card image cache budget of a stack at 1920×1080 / 800×480":
        ("time", lambda b: [b.budget("1920x1080"), b.budget("800x480")], True),
    "card image cache budget of a list at 1920×1080 / 800×480":
        ("time", lambda b: [b.visit_budgets.get(("list-visit", s)) for s in ("1920x1080", "800x480")], True),
    "scanout copy of a whole frame, thread CPU time, XRGB8888; RGB565 (dithered)":
        ("time", lambda b: b.column("scanout", "xrgb8888", "median") + b.column("scanout", "rgb565", "median"), False),
    "bytes written to scanout per drag frame (mean damage), XRGB8888; RGB565":
        ("time", lambda b: b.drag_bytes("xrgb8888") + b.drag_bytes("rgb565"), False),
}
# Rows whose command is not the bench.
OTHER = {
    "the unit's exposure (`systemd-analyze security --offline=yes`, systemd 252)": ("check", lambda b: exposure(), True),
}


def unit(cell):
    """The units of a cell, in order (ms, M, MB, ×, SAFE), so '0.42 / 0.86 ms; 3.78×' → ['ms', '×']."""
    return re.findall(r"(?<![A-Za-z])(ms|MB|M|×|SAFE)(?![A-Za-z])", cell)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/KioskCards"))
    ap.add_argument("--saved")
    args = ap.parse_args()
    rows = table_rows(os.path.join(ROOT, "docs/PERFORMANCE.md"))
    if not rows:
        sys.exit("docs-figures: no rows under '## Current figures' in docs/PERFORMANCE.md")
    outputs = {}

    def bench(name):
        if name not in outputs:
            saved = args.saved and os.path.join(args.saved, name + ".txt")
            if saved and os.path.exists(saved):
                outputs[name] = Bench(open(saved, encoding="utf-8").read())
            else:
                cmd = [args.bin, "bench"] + RUNS[name]
                print("docs-figures: running bench " + " ".join(RUNS[name]), flush=True)
                run = subprocess.run(cmd, capture_output=True, text=True)
                if run.returncode != 0:
                    sys.exit(f"docs-figures: the bench failed ({run.returncode}):\n{run.stderr[-2000:]}")
                if saved:
                    os.makedirs(args.saved, exist_ok=True)
                    open(saved, "w", encoding="utf-8").write(run.stdout)
                outputs[name] = Bench(run.stdout)
        return outputs[name]

    failures = not_rerun = 0
    for figure, now, command in rows:
        rule = RULES.get(figure) or OTHER.get(figure)
        if rule is None:
            print(f"FAIL  {figure}: no rule says where `{command}` prints it; add one to "
                  "scripts/docs-figures.py or drop the figure")
            failures += 1
            continue
        run, read, exact = rule
        if run in (EXPENSIVE, TWO_BUILDS):
            why = "minutes under valgrind" if run == EXPENSIVE else "it compares two builds"
            print(f"not re-run ({why})  {figure}: {now} — {command}")
            not_rerun += 1
            continue
        printed = read(bench(run) if run in RUNS else None)
        wanted = NUMBER.findall(now)
        problem = None
        if any(v is None for v in printed):
            problem = f"not printed (read {printed})"
        elif len(printed) != len(wanted):
            problem = f"{len(printed)} values printed ({' / '.join(printed)}), the table shows {len(wanted)} ({now})"
        elif exact and printed != wanted:
            problem = f"printed {' / '.join(printed)}, the table says {now}: this figure does not move with the host"
        elif not unit(now):
            problem = f"the table's cell '{now}' has no unit"
        if problem:
            print(f"FAIL  {figure}: {problem}")
            failures += 1
        else:
            print(f"ok    {figure}: {' / '.join(printed)} (table: {now})")
    print(f"docs-figures: {len(rows) - failures - not_rerun} of {len(rows)} figures printed by their commands "
          f"in the shape of the table, {not_rerun} not re-run, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
