#!/usr/bin/env python3
"""Report benchmark: 1,000,000 decisions from 100 kiosks -> report time, peak RSS, page size.

Usage: scripts/report-bench.py [KIOSKCARDS_BINARY] [WORK_DIR]

Makes the data with `KioskCards simulate` (one seeded kiosk, about 10,000 decisions with their
visits and events), then copies its rows to 100 kiosk ids in one SQLite file (each copy with
its own kiosk id, session ids and uids, shifted by a day per kiosk), so the figures come from
realistic rows without simulating 200,000 visitors. Then times `report --format json` and
`report --out` and prints wall time, peak RSS (getrusage of the child) and the HTML size.
Prints figures only; asserts nothing about time.
"""
import os, resource, shutil, sqlite3, subprocess, sys, time

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/KioskCards"
work = sys.argv[2] if len(sys.argv) > 2 else "/tmp/kioskcards-report-bench"
kiosks, target = 100, 1_000_000
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
seed_dir = os.path.join(work, "seed")
data = os.path.join(work, "data")
started = time.time()
subprocess.run([binary, "simulate", "--deck", "examples/seed-stack.json", "--data", seed_dir,
                "--visitors", "2320", "--seed", "2026", "--kiosk", "k000"], check=True)
os.makedirs(data)
shutil.copy(os.path.join(seed_dir, "decisions.sqlite3"), os.path.join(data, "decisions.sqlite3"))
db = sqlite3.connect(os.path.join(data, "decisions.sqlite3"))
per = db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
db.execute("PRAGMA journal_mode=WAL")
day = 86_400_000
cols = "uid, kiosk_id, session_id, deck_id, deck_version, card_id, action, wall_time, wall_ms, monotonic_ns, dwell_ms, position, input_method"
for k in range(1, kiosks):
    suffix, shift, kid = f"-{k:03d}", (k % 7) * day, f"k{k:03d}"
    db.execute(f"""INSERT INTO decisions ({cols}) SELECT uid || ?, ?, session_id || ?, deck_id, deck_version, card_id,
                   action, wall_time, wall_ms + ?, monotonic_ns, dwell_ms, position, input_method
                   FROM decisions WHERE kiosk_id = 'k000'""", (suffix, kid, suffix, shift))
    db.execute("""INSERT INTO visits (session_id, kiosk_id, deck_id, deck_version, started_wall_ms, started_monotonic_ns,
                   ended_wall_ms, end_reason, cards_shown, accessibility_used)
                   SELECT session_id || ?, ?, deck_id, deck_version, started_wall_ms + ?, started_monotonic_ns,
                   ended_wall_ms + ?, end_reason, cards_shown, accessibility_used FROM visits WHERE kiosk_id = 'k000'""",
               (suffix, kid, shift, shift))
    db.execute("""INSERT INTO kiosk_events (uid, kiosk_id, kind, wall_ms, monotonic_ns)
                   SELECT uid || ?, ?, kind, wall_ms + ?, monotonic_ns FROM kiosk_events WHERE kiosk_id = 'k000'""",
               (suffix, kid, shift))
db.commit()
total = db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
visits = db.execute("SELECT COUNT(*) FROM visits").fetchone()[0]
db.close()
print(f"report-bench: {total} decisions, {visits} visits from {kiosks} kiosks ({per} per kiosk), "
      f"made in {time.time() - started:.1f} s; database {os.path.getsize(os.path.join(data, 'decisions.sqlite3')) / 1e6:.0f} MB")

def timed(args, stdout):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.time()
    subprocess.run(args, check=True, stdout=stdout, env=dict(os.environ, TZ="UTC"))
    elapsed = time.time() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return elapsed, cpu, r1.ru_maxrss, r0.ru_maxrss  # KiB, the largest child so far

for label, args in (("json", ["--format", "json"]), ("html", ["--out", os.path.join(work, "report.html")])):
    with open(os.path.join(work, f"report.{label}.out"), "wb") as out:
        elapsed, cpu, peak, before = timed([binary, "report", "--data", data] + args, out)
    note = "" if peak > before else " (no higher than an earlier child's)"
    load = os.getloadavg()[0]
    print(f"report-bench: report {label}: {elapsed:.2f} s wall, {cpu:.2f} s CPU, peak RSS {peak / 1024:.0f} MB{note}"
          f" (load average {load:.1f})")
print(f"report-bench: HTML {os.path.getsize(os.path.join(work, 'report.html')) / 1024:.0f} KiB, "
      f"JSON {os.path.getsize(os.path.join(work, 'report.json.out')) / 1024:.0f} KiB")
