#!/usr/bin/env python3
"""Report benchmark from the fleet's PostgreSQL: 1,000,000 decisions from 100 kiosks ->
`report --postgres` time, the client's peak RSS, the server's, and the page size.

Usage: scripts/report-bench-postgres.py [KIOSKCARDS_BINARY] [WORK_DIR]

Starts its own PostgreSQL (initdb + pg_ctl in WORK_DIR, as 'nobody' when run as root, fsync off),
runs `fleet init`, registers kiosk k000 with `fleet add-kiosk`, makes about 10,000 decisions with
`KioskCards simulate` and sends them with the real `fleet sync --once` (payload 3: positions,
input methods, visits, events). Then copies k000's central rows to 99 more kiosk ids in SQL
(each with its own kiosk id, session ids and uids, shifted by a day per kiosk, as
scripts/report-bench.py does for SQLite), adds a day of heartbeats a minute apart per kiosk and
an out-of-order hour for every tenth kiosk, and times `report --postgres URL --format json` and
`--out` as an operator role. Prints figures only; asserts nothing about time.
"""
import glob, os, pwd, shutil, socket, subprocess, sys, time

binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/KioskCards")
work = sys.argv[2] if len(sys.argv) > 2 else "/tmp/kioskcards-report-bench-pg"
kiosks = 100
bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
if not bins:
    sys.exit("report-bench-postgres: PostgreSQL server binaries not found: apt-get install postgresql")
bin_dir = bins[-1]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chmod(work, 0o755)
as_server = []
if os.geteuid() == 0:
    nobody = pwd.getpwnam("nobody")
    os.chown(work, nobody.pw_uid, nobody.pw_gid)
    as_server = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
superuser = "nobody" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]

def server(*args):
    subprocess.run(as_server + [os.path.join(bin_dir, args[0])] + list(args[1:]), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

server("initdb", "-D", work + "/data", "-U", superuser, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
server("pg_ctl", "-D", work + "/data", "-l", work + "/server.log", "-w", "-t", "30", "-o",
       f"-k {work} -p {port} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=128MB", "start")
try:
    admin = f"postgresql://{superuser}@/kioskfleet?host={work}&port={port}"
    def psql(sql, db="kioskfleet"):
        out = subprocess.run([os.path.join(bin_dir, "psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1",
                              f"postgresql://{superuser}@/{db}?host={work}&port={port}", "-c", sql],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"report-bench-postgres: psql failed: {out.stderr.strip()}")
        return out.stdout.strip()
    psql("CREATE DATABASE kioskfleet", db="postgres")
    started = time.time()
    subprocess.run([binary, "fleet", "init", "--postgres", admin], check=True, stdout=subprocess.DEVNULL)
    added = subprocess.run([binary, "fleet", "add-kiosk", "k000", "--postgres", admin, "--credentials",
                            work + "/k000.password", "--kiosk-host", "127.0.0.1"],
                           check=True, capture_output=True, text=True).stdout
    url = next(l[len("fleet-url = "):] for l in added.splitlines() if l.startswith("fleet-url = "))
    seed = work + "/seed"
    subprocess.run([binary, "simulate", "--deck", "examples/seed-stack.json", "--data", seed,
                    "--visitors", "2320", "--seed", "2026", "--kiosk", "k000"], check=True, stderr=subprocess.DEVNULL)
    with open(work + "/kiosk.conf", "w") as f:
        f.write(f"data = {seed}\nfleet-url = {url}\nfleet-credentials = {work}/k000.password\n")
    subprocess.run([binary, "fleet", "sync", "--config", work + "/kiosk.conf", "--once"], check=True,
                   stderr=subprocess.DEVNULL)
    per = int(psql("SELECT count(*) FROM fleet.decisions"))
    day = 86_400_000
    psql(f"""
        INSERT INTO fleet.kiosks (kiosk_id, role_name)
            SELECT format('k%s', lpad(k::text, 3, '0')), format('bench_k%s', k) FROM generate_series(1, {kiosks - 1}) k;
        SET session_replication_role = replica;
        INSERT INTO fleet.decisions (kiosk_id, decision_uid, payload_version, session_id, deck_id, deck_version,
                card_id, action, wall_time, wall_ms, monotonic_ns, dwell_ms, boot_id, clock_synced, retracts_uid,
                received_at, local_id, position, input_method, discarded, too_fast)
            SELECT kk.id, d.decision_uid || kk.suffix, d.payload_version, d.session_id || kk.suffix, d.deck_id,
                d.deck_version, d.card_id, d.action, d.wall_time + kk.shift * interval '1 ms', d.wall_ms + kk.shift,
                d.monotonic_ns, d.dwell_ms, d.boot_id, d.clock_synced, d.retracts_uid || kk.suffix, d.received_at,
                d.local_id, d.position, d.input_method, d.discarded, d.too_fast
            FROM fleet.decisions d,
                (SELECT format('k%s', lpad(k::text, 3, '0')) AS id, format('-%s', k) AS suffix, (k % 7) * {day}::bigint AS shift
                 FROM generate_series(1, {kiosks - 1}) k) kk
            WHERE d.kiosk_id = 'k000';
        INSERT INTO fleet.visits (kiosk_id, session_id, payload_version, deck_id, deck_version, started_wall_ms,
                started_monotonic_ns, ended_wall_ms, end_reason, cards_shown, accessibility_used, received_at)
            SELECT kk.id, v.session_id || kk.suffix, 3, v.deck_id, v.deck_version, v.started_wall_ms + kk.shift,
                v.started_monotonic_ns, v.ended_wall_ms + kk.shift, v.end_reason, v.cards_shown, v.accessibility_used,
                v.received_at
            FROM fleet.visits v,
                (SELECT format('k%s', lpad(k::text, 3, '0')) AS id, format('-%s', k) AS suffix, (k % 7) * {day}::bigint AS shift
                 FROM generate_series(1, {kiosks - 1}) k) kk
            WHERE v.kiosk_id = 'k000';
        INSERT INTO fleet.kiosk_events (kiosk_id, event_uid, payload_version, kind, wall_ms, monotonic_ns, received_at)
            SELECT kk.id, e.event_uid || kk.suffix, 3, e.kind, e.wall_ms + kk.shift, e.monotonic_ns, e.received_at
            FROM fleet.kiosk_events e,
                (SELECT format('k%s', lpad(k::text, 3, '0')) AS id, format('-%s', k) AS suffix, (k % 7) * {day}::bigint AS shift
                 FROM generate_series(1, {kiosks - 1}) k) kk
            WHERE e.kiosk_id = 'k000';
        DELETE FROM fleet.heartbeats;
        INSERT INTO fleet.heartbeats (kiosk_id, sent_at, received_at, app_version, unsent, storage_failing, uptime_s)
            SELECT k.kiosk_id, now() - m * interval '1 minute', now() - m * interval '1 minute', 'bench', 0, false, 0
            FROM fleet.kiosks k, generate_series(1, 1440) m
            WHERE m % (2 + abs(hashtext(k.kiosk_id)) % 5) <> 0;
        INSERT INTO fleet.maintenance (kiosk_id, wall_ms, state, note, payload_version)
            SELECT kiosk_id, (extract(epoch FROM now() - interval '6 hours') * 1000)::bigint, 'out-of-order', 'bench', 3
            FROM fleet.kiosks WHERE kiosk_id LIKE '%0'
            UNION ALL
            SELECT kiosk_id, (extract(epoch FROM now() - interval '5 hours') * 1000)::bigint, 'in-service', 'bench', 3
            FROM fleet.kiosks WHERE kiosk_id LIKE '%0';
        SET session_replication_role = origin;
        CREATE ROLE bench_operator LOGIN IN ROLE fleet_operator;
    """)
    psql("VACUUM ANALYZE")
    total = int(psql("SELECT count(*) FROM fleet.decisions"))
    visits = int(psql("SELECT count(*) FROM fleet.visits"))
    beats = int(psql("SELECT count(*) FROM fleet.heartbeats"))
    size = int(psql("SELECT pg_database_size('kioskfleet')"))
    print(f"report-bench-postgres: {total} decisions, {visits} visits, {beats} heartbeats from {kiosks} kiosks "
          f"({per} per kiosk, sent by fleet sync), made in {time.time() - started:.1f} s; database {size / 1e6:.0f} MB")
    operator = f"postgresql://bench_operator@127.0.0.1:{port}/kioskfleet"

    def backend_peak_kib():
        # The largest VmHWM among the server's processes (the report's backend is one of them).
        peak = 0
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/status") as f:
                    status = f.read()
                if "\nName:\tpostgres\n" not in "\n" + status:
                    continue
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
            except (OSError, ValueError):
                pass
        return peak

    def timed(args, stdout):
        # The child's own rusage (os.wait4), so its peak RSS is its own, not an earlier child's.
        t = time.time()
        child = subprocess.Popen(args, stdout=stdout, env=dict(os.environ, TZ="UTC"))
        server_peak = 0
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid == child.pid:
                break
            server_peak = max(server_peak, backend_peak_kib())
            time.sleep(0.05)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            sys.exit(f"report-bench-postgres: {args} exited {child.returncode}")
        return time.time() - t, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, server_peak

    for label, args in (("json", ["--format", "json"]), ("html", ["--out", os.path.join(work, "report.html")])):
        with open(os.path.join(work, f"report.{label}.out"), "wb") as out:
            elapsed, cpu, peak, server_peak = timed([binary, "report", "--postgres", operator] + args, out)
        print(f"report-bench-postgres: report {label}: {elapsed:.2f} s wall, {cpu:.2f} s client CPU, client peak RSS "
              f"{peak / 1024:.0f} MB, largest server process (VmHWM, shared buffers included) {server_peak / 1024:.0f} MB"
              f" (load average {os.getloadavg()[0]:.1f})")
    print(f"report-bench-postgres: HTML {os.path.getsize(os.path.join(work, 'report.html')) / 1024:.0f} KiB, "
          f"JSON {os.path.getsize(os.path.join(work, 'report.json.out')) / 1024:.0f} KiB")
finally:
    server("pg_ctl", "-D", work + "/data", "-m", "fast", "-w", "stop")
